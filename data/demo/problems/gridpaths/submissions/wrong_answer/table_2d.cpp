#include <bits/stdc++.h>
using namespace std;
typedef long long ll;
const ll MOD = 1e9 + 7;

int main() {
    ios::sync_with_stdio(0);
    cin.tie(0);
    int n, m;
    cin >> n >> m;
    vector<string> a(n);
    for (int i = 0; i < n; i++) cin >> a[i];
    auto w = [&](int i, int j) -> ll {
        if (a[i][j] == '#') return 0;
        if (a[i][j] == '.') return 1;
        return a[i][j] - '0';
    };
    vector<vector<ll>> dp(n, vector<ll>(m, 0));

    // first row and first column: only one way to walk along them
    ll p = 1;
    for (int j = 0; j < m; j++) {
        if (a[0][j] == '#') { dp[0][j] = 0; continue; }
        p = p * w(0, j) % MOD;
        dp[0][j] = p;
    }
    p = dp[0][0];
    for (int i = 1; i < n; i++) {
        if (a[i][0] == '#') { dp[i][0] = 0; continue; }
        p = p * w(i, 0) % MOD;
        dp[i][0] = p;
    }

    for (int i = 1; i < n; i++)
        for (int j = 1; j < m; j++)
            dp[i][j] = (dp[i - 1][j] + dp[i][j - 1]) % MOD * w(i, j) % MOD;

    cout << dp[n - 1][m - 1] << "\n";
}
