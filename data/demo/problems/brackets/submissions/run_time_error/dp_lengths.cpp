#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    string s;
    cin >> n >> s;
    vector<int> dp(n, 0);
    int best = 0, cnt = 0;
    for (int i = 1; i < n; i++) {
        if (s.at(i) == '(') continue;
        if (s.at(i - 1) == '(') {
            dp.at(i) = 2 + (i >= 2 ? dp.at(i - 2) : 0);
        } else {
            int j = i - dp.at(i - 1) - 1;
            if (j >= 0 && s.at(j) == '(') {
                dp.at(i) = dp.at(i - 1) + 2 + dp.at(j - 1);
            }
        }
        if (dp.at(i) > best) {
            best = dp.at(i);
            cnt = 1;
        } else if (dp.at(i) == best && best > 0) {
            cnt++;
        }
    }
    if (best == 0) cnt = 1;
    cout << best << " " << cnt << "\n";
    return 0;
}
