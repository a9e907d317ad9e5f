#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

int main() {
    int n, m;
    scanf("%d %d", &n, &m);
    vector<vector<pair<int, ll>>> adj(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        ll w;
        scanf("%d %d %lld", &u, &v, &w);
        adj[u].push_back({v, w});
    }
    vector<ll> dist(n + 1, LLONG_MAX);
    priority_queue<pair<ll, int>, vector<pair<ll, int>>, greater<pair<ll, int>>> pq;
    dist[1] = 0;
    pq.push(0, 1);
    while (!pq.empty()) {
        ll d = pq.top().first;
        int u = pq.top().second;
        pq.pop();
        if (d > dist[u]) continue;
        for (auto &e : adj[u]) {
            if (d + e.second < dist[e.first]) {
                dist[e.first] = d + e.second;
                pq.push(dist[e.first], e.first);
            }
        }
    }
    printf("%lld\n", dist[n] == LLONG_MAX ? -1LL : dist[n]);
    return 0;
}
