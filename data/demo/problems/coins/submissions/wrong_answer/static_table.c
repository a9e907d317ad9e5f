#include <stdio.h>

#define N 100000
#define INF 1000000000

static int table[N + 1];
static int coin[128];
static int query[N];

int main(void) {
    int k, q;
    scanf("%d%d", &k, &q);
    for (int i = 0; i < k; i++) scanf("%d", &coin[i]);
    for (int i = 0; i < q; i++) scanf("%d", &query[i]);

    // fill the whole table once, up to the largest allowed amount
    for (int v = 1; v <= N; v++) table[v] = INF;
    for (int i = 0; i < k; i++) {
        int c = coin[i];
        for (int v = c; v < N; v++) {
            if (table[v - c] + 1 < table[v]) table[v] = table[v - c] + 1;
        }
    }

    long long total = 0;
    for (int i = 0; i < q; i++) {
        int t = table[query[i]];
        if (t == INF) {
            puts("-1");
            return 0;
        }
        total += t;
    }
    printf("%lld\n", total);
    return 0;
}
