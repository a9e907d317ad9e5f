// dp[i] = best sum of a stretch that ends exactly at day i
#include <cstdio>
#include <algorithm>

const int MAXN = 200005;
long long a[MAXN], dp[MAXN];

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; ++i) scanf("%lld", &a[i]);
    dp[0] = a[0];
    long long ans = dp[0];
    for (int i = 1; i < n; ++i) {
        dp[i] = a[i];
        if (dp[i - 1] > 0) dp[i] += dp[i - 1];
        ans = std::max(ans, dp[i]);
    }
    printf("%lld\n", ans);
    return 0;
}
