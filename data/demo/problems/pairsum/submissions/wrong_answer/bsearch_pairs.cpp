#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    long long x;
    cin >> n >> x;
    vector<long long> a(n);
    for (int i = 0; i < n; i++) cin >> a[i];
    sort(a.begin(), a.end());
    long long ans = 0;
    for (int i = 0; i < n; i++) {
        long long need = x - a[i];
        ans += lower_bound(a.begin() + i + 1, a.end(), need) - (a.begin() + i + 1);
    }
    cout << ans << endl;
}
