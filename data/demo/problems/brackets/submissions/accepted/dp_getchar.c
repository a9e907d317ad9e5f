#include <stdio.h>
#include <stdlib.h>

/* dp[i] = length of the longest balanced substring ending at position i */
static int dp[500005];
static char buf[500005];

int main(void)
{
    int n = 0, c;
    while ((c = getchar()) != EOF && (c < '0' || c > '9'))
        ;
    while (c >= '0' && c <= '9') {
        n = n * 10 + (c - '0');
        c = getchar();
    }
    int len = 0;
    while (len < n && (c = getchar()) != EOF) {
        if (c == '(' || c == ')')
            buf[len++] = (char)c;
    }

    int best = 0, ways = 0;
    for (int i = 1; i < len; i++) {
        if (buf[i] != ')')
            continue;
        if (buf[i - 1] == '(') {
            dp[i] = 2 + (i >= 2 ? dp[i - 2] : 0);
        } else {
            int j = i - dp[i - 1] - 1;
            if (j >= 0 && buf[j] == '(') {
                dp[i] = dp[i - 1] + 2;
                if (j >= 1)
                    dp[i] += dp[j - 1];
            }
        }
        if (dp[i] > best) {
            best = dp[i];
            ways = 1;
        } else if (dp[i] == best && best > 0) {
            ways++;
        }
    }
    if (best == 0)
        ways = 1;
    printf("%d %d\n", best, ways);
    return 0;
}
