#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#define N 5000000

/* bit k of the table stands for the odd number 2k+1 */
static uint32_t bits[(N / 2) / 32 + 2];
static int plist[350000];
static int pcount;

static int is_marked(int k) { return (bits[k >> 5] >> (k & 31)) & 1u; }
static void mark(int k) { bits[k >> 5] |= 1u << (k & 31); }

static void build(void) {
    int half = N / 2;               /* odd numbers 1,3,...,4999999 -> k = 0..half-1 */
    mark(0);                        /* 1 is not prime */
    for (int k = 1; ; k++) {
        long long p = 2LL * k + 1;
        if (p * p > N) break;
        if (is_marked(k)) continue;
        for (long long m = p * p; m <= N; m += 2 * p)
            mark((int)(m / 2));
    }
    plist[pcount++] = 2;
    for (int k = 1; k < half; k++)
        if (!is_marked(k)) plist[pcount++] = 2 * k + 1;
}

/* number of primes <= x */
static int count_upto(int x) {
    int lo = 0, hi = pcount;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (plist[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

static char *in;
static size_t ip;

static int next_num(void) {
    while (in[ip] < '0' || in[ip] > '9') ip++;
    int v = 0;
    while (in[ip] >= '0' && in[ip] <= '9') v = v * 10 + (in[ip++] - '0');
    return v;
}

int main(void) {
    size_t cap = 1 << 16, len = 0;
    in = malloc(cap + 1);
    size_t got;
    while ((got = fread(in + len, 1, cap - len, stdin)) > 0) {
        len += got;
        if (len == cap) {
            cap *= 2;
            in = realloc(in, cap + 1);
        }
    }
    in[len] = '\0';

    build();
    int q = next_num();
    for (int i = 0; i < q; i++) {
        int l = next_num();
        int r = next_num();
        printf("%d\n", count_upto(r) - count_upto(l - 1));
    }
    return 0;
}
