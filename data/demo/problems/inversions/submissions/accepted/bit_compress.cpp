#include <bits/stdc++.h>
using namespace std;

struct Fenwick {
    int n;
    vector<int> t;
    explicit Fenwick(int n) : n(n), t(n + 1, 0) {}
    void update(int i) {
        for (; i <= n; i += i & (-i)) t[i]++;
    }
    int query(int i) const {
        int s = 0;
        for (; i > 0; i -= i & (-i)) s += t[i];
        return s;
    }
};

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);

    int n;
    cin >> n;
    vector<int> a(n);
    for (auto &x : a) cin >> x;

    vector<int> vals(a);
    sort(vals.begin(), vals.end());
    vals.erase(unique(vals.begin(), vals.end()), vals.end());

    Fenwick fw((int)vals.size());
    long long ans = 0;
    // walk from the right: count smaller elements already placed to the right
    for (int i = n - 1; i >= 0; --i) {
        int r = int(lower_bound(vals.begin(), vals.end(), a[i]) - vals.begin()) + 1;
        ans += fw.query(r - 1);
        fw.update(r);
    }
    cout << ans << '\n';
    return 0;
}
