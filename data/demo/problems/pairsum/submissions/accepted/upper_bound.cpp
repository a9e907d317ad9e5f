#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    long long x;
    cin >> n >> x;
    vector<long long> a(n);
    for (auto &v : a) cin >> v;
    sort(a.begin(), a.end());
    long long answer = 0;
    for (int i = 0; i < n; i++) {
        // partners j > i with a[j] <= x - a[i]
        auto it = upper_bound(a.begin() + i + 1, a.end(), x - a[i]);
        answer += it - (a.begin() + i + 1);
    }
    cout << answer << '\n';
    return 0;
}
