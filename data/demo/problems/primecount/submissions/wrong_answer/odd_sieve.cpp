#include <cstdio>
#include <vector>

// sieve over odd numbers only
int main() {
    const int MAXV = 5000000;
    const int H = MAXV / 2 + 1;
    std::vector<char> oddComposite(H, 0);   // index k <-> 2k+1
    oddComposite[0] = 1;                    // 1
    for (int k = 1; (2LL * k + 1) * (2LL * k + 1) <= MAXV; k++) {
        if (oddComposite[k]) continue;
        long long p = 2 * k + 1;
        for (long long m = p * p; m <= MAXV; m += 2 * p) oddComposite[m / 2] = 1;
    }
    // oddCnt[k] = number of odd primes among 1,3,...,2k-1
    std::vector<int> oddCnt(H + 1, 0);
    for (int k = 0; k < H; k++) oddCnt[k + 1] = oddCnt[k] + (oddComposite[k] ? 0 : 1);

    int q;
    std::scanf("%d", &q);
    for (int i = 0; i < q; i++) {
        int l, r;
        std::scanf("%d %d", &l, &r);
        // odd numbers in [l, r] have indices from l/2 to (r-1)/2
        int from = l / 2, to = (r - 1) / 2;
        long long ans = 0;
        if (r >= 1 && from <= to) ans = oddCnt[to + 1] - oddCnt[from];
        if (l <= 2) ans++;
        std::printf("%lld\n", ans);
    }
    return 0;
}
