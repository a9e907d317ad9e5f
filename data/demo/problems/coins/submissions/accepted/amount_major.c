#include <stdio.h>
#include <stdlib.h>

#define LIMIT 100000
#define BIG 0x3f3f3f3f

static char buf[1 << 25];
static size_t pos = 0, len = 0;

static long long next_number(void) {
    while (pos < len && (buf[pos] < '0' || buf[pos] > '9')) pos++;
    long long r = 0;
    while (pos < len && buf[pos] >= '0' && buf[pos] <= '9') r = r * 10 + (buf[pos++] - '0');
    return r;
}

static int cmp(const void *p, const void *q) {
    int x = *(const int *)p, y = *(const int *)q;
    return (x > y) - (x < y);
}

static int best[LIMIT + 1];

static void fill_table(const int *coins, int k, int upto) {
    best[0] = 0;
    for (int v = 1; v <= upto; v++) {
        int m = BIG;
        for (int i = 0; i < k; i++) {
            if (coins[i] > v) break;          /* coins are sorted */
            int cand = best[v - coins[i]] + 1;
            if (cand < m) m = cand;
        }
        best[v] = m;
    }
}

int main(void) {
    len = fread(buf, 1, sizeof(buf), stdin);
    int k = (int)next_number();
    int q = (int)next_number();
    int coins[100];
    for (int i = 0; i < k; i++) coins[i] = (int)next_number();
    qsort(coins, k, sizeof(int), cmp);

    int *amt = malloc(sizeof(int) * q);
    int upto = 1;
    for (int i = 0; i < q; i++) {
        amt[i] = (int)next_number();
        if (amt[i] > upto) upto = amt[i];
    }
    fill_table(coins, k, upto);

    long long answer = 0;
    int ok = 1;
    for (int i = 0; i < q && ok; i++) {
        if (best[amt[i]] >= BIG) ok = 0;
        else answer += best[amt[i]];
    }
    if (ok) printf("%lld\n", answer);
    else printf("-1\n");
    free(amt);
    return 0;
}
