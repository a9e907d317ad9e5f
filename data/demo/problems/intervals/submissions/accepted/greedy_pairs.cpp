#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<pair<int, int>> seg(n);  // stored as (end, start)
    for (auto &s : seg) cin >> s.second >> s.first;
    sort(seg.begin(), seg.end());
    int ans = 0;
    long long last = -1;
    for (const auto &[r, l] : seg) {
        if (l > last) {
            ++ans;
            last = r;
        }
    }
    cout << ans << "\n";
    return 0;
}
