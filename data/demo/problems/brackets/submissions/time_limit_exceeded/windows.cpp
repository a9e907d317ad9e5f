#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    string s;
    cin >> n >> s;
    // prefix balances
    vector<int> pre(n + 1, 0);
    for (int i = 0; i < n; i++) pre[i + 1] = pre[i] + (s[i] == '(' ? 1 : -1);
    // sparse table for range minimum of pre
    int LOG = 1;
    while ((1 << LOG) <= n + 1) LOG++;
    vector<vector<int>> mn(LOG, vector<int>(n + 1));
    mn[0] = pre;
    for (int k = 1; k < LOG; k++)
        for (int i = 0; i + (1 << k) <= n + 1; i++)
            mn[k][i] = min(mn[k - 1][i], mn[k - 1][i + (1 << (k - 1))]);
    auto query = [&](int l, int r) {  // min of pre[l..r]
        int k = 31 - __builtin_clz(r - l + 1);
        return min(mn[k][l], mn[k][r - (1 << k) + 1]);
    };
    // try window lengths from the largest down
    for (int len = n - (n & 1); len >= 2; len -= 2) {
        int found = 0;
        for (int i = 0; i + len <= n; i++) {
            if (pre[i + len] == pre[i] && query(i, i + len) >= pre[i]) found++;
        }
        if (found > 0) {
            cout << len << " " << found << "\n";
            return 0;
        }
    }
    cout << "0 1\n";
    return 0;
}
