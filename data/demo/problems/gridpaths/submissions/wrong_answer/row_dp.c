#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007

int main() {
    int R, C;
    scanf("%d %d", &R, &C);
    char *s = malloc(C + 2);
    int *dp = calloc(C, sizeof(int));
    for (int i = 0; i < R; i++) {
        scanf("%s", s);
        for (int j = 0; j < C; j++) {
            if (s[j] == '#') {
                dp[j] = 0;
                continue;
            }
            int w = s[j] == '.' ? 1 : s[j] - '0';
            int v;
            if (i == 0 && j == 0) v = 1;
            else {
                v = dp[j];
                if (j > 0) v = (v + dp[j - 1]) % MOD;
            }
            dp[j] = v * w % MOD;
        }
    }
    printf("%d\n", dp[C - 1]);
    return 0;
}
