#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int k, q;
    cin >> k >> q;
    vector<long long> d(k);
    for (auto &x : d) cin >> x;
    sort(d.rbegin(), d.rend());

    long long total = 0;
    bool ok = true;
    for (int j = 0; j < q; j++) {
        long long a;
        cin >> a;
        // take as many of the biggest coin as possible, then the next one, ...
        long long used = 0;
        for (long long c : d) {
            used += a / c;
            a %= c;
        }
        if (a != 0) ok = false;
        total += used;
    }
    if (!ok) cout << -1 << '\n';
    else cout << total << '\n';
    return 0;
}
