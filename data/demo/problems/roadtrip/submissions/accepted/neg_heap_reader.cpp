#include <bits/stdc++.h>
using namespace std;

// fast input
static char ibuf[1 << 25];
size_t ilen, ipos;

inline long long readNum() {
    while (ipos < ilen && !isdigit((unsigned char)ibuf[ipos])) ipos++;
    long long r = 0;
    while (ipos < ilen && isdigit((unsigned char)ibuf[ipos])) r = r * 10 + (ibuf[ipos++] - '0');
    return r;
}

int main() {
    ilen = fread(ibuf, 1, sizeof(ibuf), stdin);
    int n = (int)readNum();
    int m = (int)readNum();

    vector<int> deg(n + 2, 0), from(m), to(m);
    vector<long long> w(m);
    for (int i = 0; i < m; i++) {
        from[i] = (int)readNum();
        to[i] = (int)readNum();
        w[i] = readNum();
        deg[from[i]]++;
    }
    vector<int> off(n + 2, 0);
    for (int v = 1; v <= n; v++) off[v + 1] = off[v] + deg[v];
    vector<int> adjTo(m);
    vector<long long> adjW(m);
    vector<int> cur(off.begin(), off.end());
    for (int i = 0; i < m; i++) {
        int p = cur[from[i]]++;
        adjTo[p] = to[i];
        adjW[p] = w[i];
    }

    vector<long long> dist(n + 1, -1);
    vector<char> fin(n + 1, 0);
    priority_queue<pair<long long, int>> heap;   // stores (-distance, vertex)
    dist[1] = 0;
    heap.push(make_pair(0LL, 1));
    while (!heap.empty()) {
        long long d = -heap.top().first;
        int u = heap.top().second;
        heap.pop();
        if (fin[u]) continue;
        fin[u] = 1;
        if (u == n) break;
        for (int p = off[u]; p < off[u + 1]; p++) {
            int v = adjTo[p];
            long long nd = d + adjW[p];
            if (!fin[v] && (dist[v] < 0 || nd < dist[v])) {
                dist[v] = nd;
                heap.push(make_pair(-nd, v));
            }
        }
    }
    printf("%lld\n", dist[n]);
    return 0;
}
