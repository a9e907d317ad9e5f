#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<int, int>> seg(n);  // (end, start)
    for (int i = 0; i < n; i++) scanf("%d %d", &seg[i].second, &seg[i].first);
    sort(seg.begin(), seg.end());

    vector<int> ends(n), dp(n);
    for (int i = 0; i < n; i++) ends[i] = seg[i].first;
    dp[0] = 1;
    for (int i = 1; i < n; i++) {
        // last request that is over before this one begins
        int j = lower_bound(ends.begin(), ends.begin() + i, seg[i].second) - ends.begin() - 1;
        dp[i] = max(dp.at(i - 1), dp.at(j) + 1);
    }
    printf("%d\n", dp[n - 1]);
    return 0;
}
