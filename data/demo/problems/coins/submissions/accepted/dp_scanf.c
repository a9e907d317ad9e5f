#include <stdio.h>

#define MAXV 100000
#define INF 1000000000

int d[105];
int a[100005];
int dp[MAXV + 1];

int main(void) {
    int k, q;
    if (scanf("%d %d", &k, &q) != 2) return 0;
    for (int i = 0; i < k; i++) scanf("%d", &d[i]);
    int top = 0;
    for (int j = 0; j < q; j++) {
        scanf("%d", &a[j]);
        if (a[j] > top) top = a[j];
    }

    dp[0] = 0;
    for (int x = 1; x <= top; x++) dp[x] = INF;

    /* unbounded knapsack: coin by coin, amounts increasing */
    for (int i = 0; i < k; i++) {
        int c = d[i];
        for (int x = c; x <= top; x++) {
            if (dp[x - c] + 1 < dp[x]) dp[x] = dp[x - c] + 1;
        }
    }

    long long total = 0;
    for (int j = 0; j < q; j++) {
        if (dp[a[j]] >= INF) {
            printf("-1\n");
            return 0;
        }
        total += dp[a[j]];
    }
    printf("%lld\n", total);
    return 0;
}
