// Pair Sums: radix sort (values shifted to be non-negative) + sweep with a shrinking right end.
#include <stdio.h>
#include <stdlib.h>

#define OFFSET 1000000000LL

static long long rd(void) {
    int c = getchar(), s = 1;
    while (c != '-' && (c < '0' || c > '9')) c = getchar();
    if (c == '-') { s = -1; c = getchar(); }
    long long x = 0;
    for (; c >= '0' && c <= '9'; c = getchar()) x = x * 10 + (c - '0');
    return s * x;
}

int main() {
    int n = (int)rd();
    long long X = rd();
    unsigned *v = malloc(sizeof(unsigned) * n), *w = malloc(sizeof(unsigned) * n);
    for (int i = 0; i < n; i++) v[i] = (unsigned)(rd() + OFFSET);

    /* LSD radix sort, 11 bits per pass */
    static int bucket[2048 + 1];
    for (int sh = 0; sh < 33; sh += 11) {
        for (int d = 0; d <= 2048; d++) bucket[d] = 0;
        for (int i = 0; i < n; i++) bucket[((v[i] >> sh) & 2047) + 1]++;
        for (int d = 0; d < 2048; d++) bucket[d + 1] += bucket[d];
        for (int i = 0; i < n; i++) w[bucket[(v[i] >> sh) & 2047]++] = v[i];
        unsigned *t = v; v = w; w = t;
    }

    long long limit = X + 2 * OFFSET;   /* compare in shifted units */
    long long cnt = 0;
    int hi = n - 1;
    for (int lo = 0; lo < n; lo++) {
        while (hi > lo && (long long)v[lo] + v[hi] > limit) hi--;
        if (hi <= lo) break;
        cnt += hi - lo;
    }
    printf("%lld\n", cnt);
    return 0;
}
