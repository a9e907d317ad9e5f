#include <bits/stdc++.h>
using namespace std;
using ll = long long;

vector<ll> a;

ll best(int lo, int hi) {
    if (lo == hi) return a[lo];
    int mid = (lo + hi) / 2;
    ll res = max(best(lo, mid), best(mid + 1, hi));
    // best stretch crossing the middle
    ll s = 0, L = LLONG_MIN;
    for (int i = mid; i >= lo; i--) {
        s += a[i];
        L = max(L, s);
    }
    s = a[mid + 1];
    ll R = s;
    for (int i = mid + 2; i < hi; i++) {
        s += a[i];
        R = max(R, s);
    }
    return max(res, L + R);
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    a.resize(n);
    for (int i = 0; i < n; i++) cin >> a[i];
    cout << best(0, n - 1) << "\n";
}
