#include <bits/stdc++.h>
using namespace std;

const int INF = 100000;

int main() {
    ios_base::sync_with_stdio(false);
    cin.tie(NULL);
    int k, q;
    cin >> k >> q;
    vector<int> coins(k);
    for (int i = 0; i < k; i++) cin >> coins[i];
    vector<int> a(q);
    int mx = 0;
    for (int i = 0; i < q; i++) {
        cin >> a[i];
        mx = max(mx, a[i]);
    }
    vector<int> dp(mx + 1, INF);
    dp[0] = 0;
    for (int i = 1; i <= mx; i++) {
        for (int c : coins) {
            if (c <= i) dp[i] = min(dp[i], dp[i - c] + 1);
        }
    }
    long long ans = 0;
    for (int i = 0; i < q; i++) {
        if (dp[a[i]] >= INF) {
            cout << -1 << endl;
            return 0;
        }
        ans += dp[a[i]];
    }
    cout << ans << endl;
    return 0;
}
