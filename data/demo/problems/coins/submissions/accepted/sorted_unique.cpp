#include <algorithm>
#include <cstdio>
#include <vector>

using ll = long long;

int main() {
    int k, q;
    if (std::scanf("%d %d", &k, &q) != 2) return 0;
    std::vector<int> coins(k);
    for (int i = 0; i < k; ++i) std::scanf("%d", &coins[i]);
    std::vector<int> amounts(q);
    int top = 0;
    for (int i = 0; i < q; ++i) {
        std::scanf("%d", &amounts[i]);
        top = std::max(top, amounts[i]);
    }

    // duplicates and coins above the largest amount never help
    std::sort(coins.begin(), coins.end());
    coins.erase(std::unique(coins.begin(), coins.end()), coins.end());
    while (!coins.empty() && coins.back() > top) coins.pop_back();

    const ll NONE = (ll)4e18;
    std::vector<ll> f(top + 1, NONE);
    f[0] = 0;
    for (int v = 1; v <= top; ++v) {
        ll m = NONE;
        for (int c : coins) {
            if (c > v) break;
            if (f[v - c] != NONE) m = std::min(m, f[v - c] + 1);
        }
        f[v] = m;
    }

    ll sum = 0;
    for (int x : amounts) {
        if (f[x] == NONE) {
            std::puts("-1");
            return 0;
        }
        sum += f[x];
    }
    std::printf("%lld\n", sum);
}
