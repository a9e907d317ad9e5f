#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

int main() {
    cin.tie(0)->sync_with_stdio(0);
    int n;
    cin >> n;
    vector<int> a(n), b(n);
    for (int i = 0; i < n; i++) cin >> a[i] >> b[i];
    sort(a.begin(), a.end());
    sort(b.begin(), b.end());
    ll ans = (ll)n * (n - 1) / 2;
    int R = 0;
    for (int i = 0; i < n; i++) {
        int k = upper_bound(b.begin(), b.end(), a[i]) - b.begin();
        ans -= k;
        R = max(R, i + 1 - k);
    }
    cout << R << ' ' << ans << endl;
}
