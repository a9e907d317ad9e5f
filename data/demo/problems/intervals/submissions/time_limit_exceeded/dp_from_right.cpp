#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<pair<int, int>> v(n);
    for (auto &p : v) cin >> p.first >> p.second;
    sort(v.begin(), v.end());

    // g[i] = largest number of requests we can accept starting with request i
    vector<int> g(n, 0);
    int ans = 0;
    for (int i = n - 1; i >= 0; i--) {
        int follow = 0;
        for (int j = 0; j < n; j++) {
            if (v[j].first > v[i].second) follow = max(follow, g[j]);
        }
        g[i] = follow + 1;
        ans = max(ans, g[i]);
    }
    cout << ans << endl;
}
