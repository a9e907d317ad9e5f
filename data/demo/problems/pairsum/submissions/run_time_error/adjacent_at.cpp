#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long X;
    cin >> n >> X;
    vector<long long> v(n);
    for (int i = 0; i < n; i++) cin >> v[i];
    sort(v.begin(), v.end());

    long long ans = 0;
    for (int i = 0; i < n; i++) {
        // smallest partner for v[i] is v[i + 1]; if that is too big we are done
        if (v.at(i) + v.at(i + 1) > X) break;
        ans += upper_bound(v.begin() + i + 1, v.end(), X - v[i]) - (v.begin() + i + 1);
    }
    cout << ans << endl;
    return 0;
}
