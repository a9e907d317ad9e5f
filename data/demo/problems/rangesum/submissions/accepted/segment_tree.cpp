#include <cstdio>
#include <vector>
using namespace std;

// Iterative segment tree over sums (leaves at [size, 2*size)).
struct SegTree {
    int size;
    vector<long long> t;
    SegTree(const vector<long long> &vals) {
        size = 1;
        while (size < (int)vals.size()) size <<= 1;
        t.assign(2 * size, 0);
        for (int i = 0; i < (int)vals.size(); i++) t[size + i] = vals[i];
        for (int i = size - 1; i >= 1; i--) t[i] = t[2 * i] + t[2 * i + 1];
    }
    // sum over the half-open range [lo, hi)
    long long sum(int lo, int hi) const {
        long long res = 0;
        for (lo += size, hi += size; lo < hi; lo >>= 1, hi >>= 1) {
            if (lo & 1) res += t[lo++];
            if (hi & 1) res += t[--hi];
        }
        return res;
    }
};

int main() {
    int n, q;
    if (scanf("%d %d", &n, &q) != 2) return 0;
    vector<long long> vals(n);
    for (int i = 0; i < n; i++) scanf("%lld", &vals[i]);
    SegTree st(vals);
    for (int i = 0; i < q; i++) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%lld\n", st.sum(l - 1, r));
    }
    return 0;
}
