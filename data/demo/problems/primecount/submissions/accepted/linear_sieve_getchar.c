#include <stdio.h>
#include <stdlib.h>

/* linear sieve: every composite is crossed out exactly once by its smallest prime factor */
enum { LIM = 5000000 };

static int lp[LIM + 1];
static int cnt[LIM + 1];
static int primes[400000];

static int read_int(void) {
    int c = getchar();
    while (c != '-' && (c < '0' || c > '9')) c = getchar();
    int x = 0;
    while (c >= '0' && c <= '9') {
        x = x * 10 + (c - '0');
        c = getchar();
    }
    return x;
}

int main(void) {
    int np = 0;
    for (int i = 2; i <= LIM; ++i) {
        if (lp[i] == 0) {
            lp[i] = i;
            primes[np++] = i;
        }
        for (int j = 0; j < np && primes[j] <= lp[i] && (long long)i * primes[j] <= LIM; ++j)
            lp[i * primes[j]] = primes[j];
    }
    cnt[0] = cnt[1] = 0;
    for (int i = 2; i <= LIM; ++i)
        cnt[i] = cnt[i - 1] + (lp[i] == i);

    int q = read_int();
    char *buf = malloc((size_t)q * 8 + 16);
    size_t pos = 0;
    for (int t = 0; t < q; ++t) {
        int a = read_int(), b = read_int();
        int ans = cnt[b] - cnt[a - 1];
        pos += sprintf(buf + pos, "%d\n", ans);
    }
    fwrite(buf, 1, pos, stdout);
    free(buf);
    return 0;
}
