#include <bits/stdc++.h>
using namespace std;

const long long MOD = 1'000'000'007LL;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int R, C;
    cin >> R >> C;
    vector<string> g(R);
    for (auto &row : g) cin >> row;

    // dp with an extra row and column of zeros on the top/left border
    vector<vector<long long>> dp(R + 1, vector<long long>(C + 1, 0));
    for (int i = 1; i <= R; i++) {
        for (int j = 1; j <= C; j++) {
            char ch = g[i - 1][j - 1];
            if (ch == '#') continue;
            long long w = (ch == '.') ? 1 : (ch - '0');
            long long in = (i == 1 && j == 1) ? 1 : dp[i - 1][j] + dp[i][j - 1];
            dp[i][j] = in % MOD * w % MOD;
        }
    }
    cout << dp[R][C] << "\n";
    return 0;
}
