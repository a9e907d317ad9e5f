#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    long long X;
    cin >> n >> X;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;
    sort(a.begin(), a.end());
    long long ans = 0
    for (int l = 0, r = n - 1; l < r;) {
        if (a[l] + a[r] <= X) {
            ans += r - l;
            l++;
        } else {
            r--;
        }
    }
    cout << ans << '\n';
}
