#include <bits/stdc++.h>
using namespace std;

int main() {
    int k, q;
    cin >> k >> q;
    vector<int> c(k);
    for (int i = 0; i < k; i++) cin >> c[i];
    vector<int> a(q);
    for (int i = 0; i < q; i++) cin >> a[i];
    int mx = *max_element(a.begin(), a.end())
    vector<int> dp(mx + 1, INT_MAX);
    dp[0] = 0;
    for (int x = 1; x <= mx; x++)
        for (int j = 0; j < k; j++)
            if (c[j] <= x && dp[x - c[j]] != INT_MAX)
                dp[x] = min(dp[x], dp[x - c[j]] + 1);
    long long total = 0;
    for (int i = 0; i < q; i++) {
        if (dp[a[i]] == INT_MAX) { cout << -1 << endl; return 0; }
        total += dp[a[i]];
    }
    cout << total << endl;
}
