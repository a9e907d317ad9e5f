#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007LL

int main(void) {
    int R, C;
    if (scanf("%d %d", &R, &C) != 2) return 0;
    char *line = malloc(C + 2);
    long long *dp = calloc(C, sizeof(long long));

    for (int i = 0; i < R; i++) {
        scanf("%s", line);
        for (int j = 0; j < C; j++) {
            char ch = line[j];
            if (ch == '#') {
                dp[j] = 0;
                continue;
            }
            long long w = (ch == '.') ? 1 : ch - '0';
            long long ways;
            if (i == 0 && j == 0) ways = 1;
            else ways = dp[j] + (j > 0 ? dp[j - 1] : 0);   /* dp[j] still holds the row above */
            dp[j] = ways % MOD * w % MOD;
        }
    }
    printf("%lld\n", dp[C - 1]);
    free(line);
    free(dp);
    return 0;
}
