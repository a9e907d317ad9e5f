#include <bits/stdc++.h>
using namespace std;

struct Req { int l, r; };

int main() {
    int n;
    scanf("%d", &n);
    vector<Req> req(n);
    for (int i = 0; i < n; i++) scanf("%d %d", &req[i].l, &req[i].r);
    sort(req.begin(), req.end(), [](const Req &a, const Req &b) { return a.r < b.r; });

    vector<int> ends(n);
    for (int i = 0; i < n; i++) ends[i] = req[i].r;

    // f[i] = best answer using only the first i requests (in order of end day)
    vector<int> f(n + 1, 0);
    for (int i = 1; i <= n; i++) {
        const Req &cur = req[i - 1];
        // requests among the first i-1 that end strictly before cur.l
        int k = lower_bound(ends.begin(), ends.begin() + (i - 1), cur.l) - ends.begin();
        f[i] = max(f[i - 1], f[k] + 1);
    }
    printf("%d\n", f[n]);
    return 0;
}
