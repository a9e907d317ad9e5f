#include <bits/stdc++.h>
using namespace std;

int main() {
    int R, C;
    cin >> R >> C;
    vector<string> g(R);
    for (auto &s : g) cin >> s;
    vector<long long> dp(C);
    for (int i = 0; i < R; i++) {
        for (int j = 0; j < C; j++) {
            if (g[i][j] == '#') { dp[j] = 0; continue; }
            long long w = g[i][j] == '.' ? 1 : g[i][j] - '0';
            long long s = (i == 0 && j == 0) ? 1 : dp[j] + (j ? dp[j - 1] : 0);
            dp[j] = s % MOD * w % MOD;
        }
    }
    cout << dp[C - 1] << endl;
}
