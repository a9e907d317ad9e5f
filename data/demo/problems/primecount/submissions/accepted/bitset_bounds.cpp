#include <bitset>
#include <cstdio>
#include <vector>
#include <algorithm>

static std::bitset<5000001> comp;

int main() {
    const int LIM = 5000000;
    comp[0] = comp[1] = 1;
    for (long long p = 2; p * p <= LIM; ++p)
        if (!comp[p])
            for (long long m = p * p; m <= LIM; m += p) comp[m] = 1;

    std::vector<int> primes;
    primes.reserve(350000);
    for (int x = 2; x <= LIM; ++x)
        if (!comp[x]) primes.push_back(x);

    int q;
    if (std::scanf("%d", &q) != 1) return 0;
    while (q-- > 0) {
        int l, r;
        std::scanf("%d%d", &l, &r);
        auto lo = std::lower_bound(primes.begin(), primes.end(), l);
        auto hi = std::upper_bound(primes.begin(), primes.end(), r);
        std::printf("%d\n", (int)(hi - lo));
    }
}
