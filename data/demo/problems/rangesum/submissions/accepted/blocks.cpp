#include <bits/stdc++.h>
using namespace std;

static inline int readInt() {
    int c = getchar();
    while (c != '-' && (c < '0' || c > '9')) c = getchar();
    int x = 0;
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = getchar(); }
    return x;
}

int main() {
    int n = readInt(), q = readInt();
    vector<long long> a(n);
    for (int i = 0; i < n; i++) a[i] = readInt();

    // square-root decomposition: precomputed block totals
    int B = max(1, (int)sqrt((double)n));
    int blocks = (n + B - 1) / B;
    vector<long long> blockSum(blocks, 0);
    for (int i = 0; i < n; i++) blockSum[i / B] += a[i];

    for (int k = 0; k < q; k++) {
        int l = readInt() - 1, r = readInt() - 1;
        long long total = 0;
        int bl = l / B, br = r / B;
        if (bl == br) {
            for (int i = l; i <= r; i++) total += a[i];
        } else {
            for (int i = l; i < (bl + 1) * B; i++) total += a[i];
            for (int b = bl + 1; b < br; b++) total += blockSum[b];
            for (int i = br * B; i <= r; i++) total += a[i];
        }
        printf("%lld\n", total);
    }
    return 0;
}
