#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, m;
    cin >> n >> m;
    vector<vector<pair<int, ll>>> g(n + 1);
    for (int i = 0; i < m; i++) {
        int u, v;
        ll w;
        cin >> u >> v >> w;
        g[u].emplace_back(v, w);
    }
    const ll INF = 4e18;
    vector<ll> dist(n + 1, INF);
    vector<bool> seen(n + 1, false);
    queue<int> q;
    dist[1] = 0;
    seen[1] = true;
    q.push(1);
    while (!q.empty()) {
        int u = q.front();
        q.pop();
        for (auto &[v, w] : g[u]) {
            if (dist[u] + w < dist[v]) dist[v] = dist[u] + w;
            if (!seen[v]) {
                seen[v] = true;
                q.push(v);
            }
        }
    }
    cout << (dist[n] == INF ? -1 : dist[n]) << '\n';
    return 0;
}
