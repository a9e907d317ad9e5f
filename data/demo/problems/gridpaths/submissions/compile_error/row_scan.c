#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int r, c;
    scanf("%d %d", &r, &c);
    char *row = malloc(c + 2);
    long long *dp = calloc(c, sizeof(long long));
    const long long M = 1000000007LL;
    for (int i = 0; i < r; i++) {
        scanf("%s", row);
        for (int j = 0; j < c; j++) {
            if (row[j] == '#') { dp[j] = 0; continue; }
            long long w = row[j] == '.' ? 1 : row[j] - '0'
            long long s = (i == 0 && j == 0) ? 1 : dp[j] + (j ? dp[j - 1] : 0);
            dp[j] = s % M * w % M;
        }
    }
    printf("%lld\n", dp[c - 1]);
    return 0;
}
