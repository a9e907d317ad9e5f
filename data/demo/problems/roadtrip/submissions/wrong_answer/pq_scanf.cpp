#include <bits/stdc++.h>
using namespace std;

typedef long long ll;
typedef pair<ll, int> pli;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<vector<pli>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int a, b;
        ll c;
        scanf("%d %d %lld", &a, &b, &c);
        adj[a].push_back(pli(c, b));
    }
    vector<ll> dist(n + 1, LLONG_MAX);
    vector<int> vis(n + 1, 0);
    priority_queue<pli> pq;
    dist[1] = 0;
    pq.push(pli(0, 1));
    while (!pq.empty()) {
        int u = pq.top().second;
        pq.pop();
        if (vis[u]) continue;
        vis[u] = 1;
        for (auto &e : adj[u]) {
            int v = e.second;
            if (!vis[v] && dist[u] + e.first < dist[v]) {
                dist[v] = dist[u] + e.first;
                pq.push(pli(dist[v], v));
            }
        }
    }
    if (dist[n] == LLONG_MAX) puts("-1");
    else printf("%lld\n", dist[n]);
    return 0;
}
