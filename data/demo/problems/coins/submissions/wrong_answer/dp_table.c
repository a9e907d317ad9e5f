#include <stdio.h>
#include <string.h>

int coins[100];
int amount[100000];
int dp[100001];

int main() {
    int k, q, i, x;
    scanf("%d %d", &k, &q);
    for (i = 0; i < k; i++) scanf("%d", &coins[i]);
    int mx = 0;
    for (i = 0; i < q; i++) {
        scanf("%d", &amount[i]);
        if (amount[i] > mx) mx = amount[i];
    }
    for (x = 1; x <= mx; x++) dp[x] = 1 << 29;
    dp[0] = 0;
    for (x = 1; x <= mx; x++)
        for (i = 0; i < k; i++)
            if (coins[i] <= x && dp[x - coins[i]] + 1 < dp[x])
                dp[x] = dp[x - coins[i]] + 1;
    int total = 0;
    for (i = 0; i < q; i++) {
        if (dp[amount[i]] >= (1 << 29)) {
            printf("-1\n");
            return 0;
        }
        total += dp[amount[i]];
    }
    printf("%d\n", total);
    return 0;
}
