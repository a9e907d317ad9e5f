#include <bits/stdc++.h>
using namespace std;
using ll = long long;

struct BIT {
    int n;
    vector<int> t;
    explicit BIT(int n) : n(n), t(n + 1, 0) {}
    void add(int i) {
        for (++i; i <= n; i += i & -i) t[i]++;
    }
    ll prefix(int cnt) const {   // how many inserted values have index < cnt
        ll s = 0;
        for (int i = cnt; i > 0; i -= i & -i) s += t[i];
        return s;
    }
};

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    ll X;
    cin >> n >> X;
    vector<ll> a(n);
    for (auto &v : a) cin >> v;

    vector<ll> vals(a);
    sort(vals.begin(), vals.end());
    vals.erase(unique(vals.begin(), vals.end()), vals.end());

    BIT bit(vals.size());
    ll pairs = 0;
    for (int j = 0; j < n; j++) {
        // earlier elements a[i] with a[i] <= X - a[j]
        int cnt = upper_bound(vals.begin(), vals.end(), X - a[j]) - vals.begin();
        pairs += bit.prefix(cnt);
        bit.add(lower_bound(vals.begin(), vals.end(), a[j]) - vals.begin());
    }
    cout << pairs << "\n";
}
