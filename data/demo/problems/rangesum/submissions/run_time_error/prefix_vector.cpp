#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, q;
    cin >> n >> q;
    vector<long long> pre(n);
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        pre.at(i) = (i > 0 ? pre.at(i - 1) : 0) + x;
    }
    // pre[i] holds a_1 + ... + a_(i+1)
    while (q--) {
        int l, r;
        cin >> l >> r;
        cout << pre.at(r - 1) - pre.at(l - 2) << "\n";
    }
    return 0;
}
