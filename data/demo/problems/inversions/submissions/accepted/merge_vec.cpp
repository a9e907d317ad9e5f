#include <cstdio>
#include <vector>
#include <algorithm>

typedef long long ll;

ll solve(std::vector<int>& v, int l, int r) {  // half-open [l, r)
    if (r - l <= 1) return 0;
    int m = l + (r - l) / 2;
    ll res = solve(v, l, m) + solve(v, m, r);
    // both halves are sorted now; count pairs across the middle
    int j = m;
    for (int i = l; i < m; i++) {
        while (j < r && v[j] < v[i]) j++;
        res += j - m;
    }
    std::inplace_merge(v.begin() + l, v.begin() + m, v.begin() + r);
    return res;
}

int main() {
    int n;
    scanf("%d", &n);
    std::vector<int> v(n);
    for (int i = 0; i < n; i++) scanf("%d", &v[i]);
    printf("%lld\n", solve(v, 0, n));
}
