#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int k, q;
    scanf("%d %d", &k, &q);
    int *coin = malloc(k * sizeof(int));
    for (int i = 0; i < k; i++) scanf("%d", &coin[i]);
    int *amt = malloc(q * sizeof(int));
    int top = 0;
    for (int i = 0; i < q; i++) {
        scanf("%d", &amt[i]);
        if (amt[i] > top) top = amt[i];
    }
    int *dp = malloc((top + 1) * sizeof(int));
    dp[0] = 0;
    for (int x = 1; x <= top; x++) {
        dp[x] = -1;
        for (int i = 0; i < k; i++) {
            if (coin[i] <= x && dp[x - coin[i]] >= 0) {
                int cand = dp[x - coin[i]] + 1;
                if (dp[x] < 0 || cand < dp[x]) dp[x] = cand;
            }
        }
    }
    long long total = 0;
    for (int i = 0; i < q; i++) {
        if (dp[amt[i]] < 0) {
            printf("-1\n");
            return 0;
        }
        totl += dp[amt[i]];
    }
    printf("%lld\n", total);
    return 0;
}
