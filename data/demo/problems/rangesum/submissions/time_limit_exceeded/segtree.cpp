#include <bits/stdc++.h>
using namespace std;

int n;
vector<long long> a, seg;

void build(int node, int lo, int hi) {
    if (lo == hi) {
        seg[node] = a[lo];
        return;
    }
    int mid = (lo + hi) / 2;
    build(2 * node, lo, mid);
    build(2 * node + 1, mid + 1, hi);
    seg[node] = seg[2 * node] + seg[2 * node + 1];
}

long long query(int node, int lo, int hi, int l, int r) {
    if (r < lo || hi < l) return 0;
    if (lo == hi) return seg[node];
    int mid = (lo + hi) / 2;
    return query(2 * node, lo, mid, l, r) + query(2 * node + 1, mid + 1, hi, l, r);
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int q;
    cin >> n >> q;
    a.assign(n + 1, 0);
    for (int i = 1; i <= n; i++) cin >> a[i];
    seg.assign(4 * n + 4, 0);
    build(1, 1, n);
    while (q--) {
        int l, r;
        cin >> l >> r;
        cout << query(1, 1, n, l, r) << '\n';
    }
    return 0;
}
