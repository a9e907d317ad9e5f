#include <bits/stdc++.h>
using namespace std;

#define MOD 1000000009LL

int main() {
    int R, C;
    scanf("%d %d", &R, &C);
    vector<long long> dp(C, 0);
    static char buf[1000005];
    for (int i = 0; i < R; i++) {
        scanf("%s", buf);
        for (int j = 0; j < C; j++) {
            if (buf[j] == '#') { dp[j] = 0; continue; }
            long long w = buf[j] == '.' ? 1 : buf[j] - '0';
            long long v = (i == 0 && j == 0) ? 1 : dp[j] + (j ? dp[j - 1] : 0);
            dp[j] = v % MOD * w % MOD;
        }
    }
    printf("%lld\n", dp[C - 1]);
    return 0;
}
