#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);

    int k, q;
    cin >> k >> q;
    vector<int> d(k);
    for (auto &x : d) cin >> x;
    vector<int> a(q);
    for (auto &x : a) cin >> x;

    int mx = *max_element(a.begin(), a.end());
    const int INF = INT_MAX / 2;
    vector<int> dp(mx + 1, INF);
    dp[0] = 0;
    for (int c : d) {
        for (int s = c; s <= mx; s++) {
            dp[s] = min(dp[s], dp[s - c] + 1);
        }
    }

    long long total = 0;
    for (int x : a) {
        if (dp[x] == INF) {
            cout << -1 << "\n";
            return 0;
        }
        total += dp[x];
    }
    cout << total << "\n";
    return 0;
}
