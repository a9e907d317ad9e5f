#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);

    int n, q;
    cin >> n >> q;
    vector<long long> a(n), prefix(n + 1, 0);
    for (auto &x : a) cin >> x;
    partial_sum(a.begin(), a.end(), prefix.begin() + 1);

    string out;
    out.reserve(q * 12);
    while (q--) {
        int l, r;
        cin >> l >> r;
        out += to_string(prefix[r] - prefix[l - 1]);
        out += '\n';
    }
    cout << out;
    return 0;
}
