#include <cstdio>
#include <set>
#include <vector>
#include <utility>

typedef long long int64;

struct Edge {
    int to;
    int64 w;
};

int main() {
    int n, m;
    if (std::scanf("%d %d", &n, &m) != 2) return 0;
    std::vector<std::vector<Edge>> g(n + 1);
    for (int i = 0; i < m; ++i) {
        int a, b;
        long long c;
        std::scanf("%d %d %lld", &a, &b, &c);
        g[a].push_back(Edge{b, c});
    }

    const int64 UNSEEN = -1;
    std::vector<int64> d(n + 1, UNSEEN);
    std::set<std::pair<int64, int>> frontier;
    d[1] = 0;
    frontier.insert({0, 1});
    while (!frontier.empty()) {
        auto it = frontier.begin();
        int cur = it->second;
        int64 cd = it->first;
        frontier.erase(it);
        if (cur == n) break;
        for (const Edge &e : g[cur]) {
            int64 nd = cd + e.w;
            if (d[e.to] == UNSEEN || nd < d[e.to]) {
                if (d[e.to] != UNSEEN) frontier.erase({d[e.to], e.to});
                d[e.to] = nd;
                frontier.insert({nd, e.to});
            }
        }
    }
    std::printf("%lld\n", (long long)d[n]);
    return 0;
}
