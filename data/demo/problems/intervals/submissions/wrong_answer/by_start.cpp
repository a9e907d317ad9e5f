#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<pair<int, int>> v(n);
    for (int i = 0; i < n; i++) cin >> v[i].first >> v[i].second;
    sort(v.begin(), v.end());   // earliest start first

    int cnt = 0;
    int lastEnd = -1;
    for (int i = 0; i < n; i++) {
        if (v[i].first > lastEnd) {
            cnt++;
            lastEnd = v[i].second;
        }
    }
    cout << cnt << '\n';
    return 0;
}
