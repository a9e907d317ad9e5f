#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<long long> pre(n);
    long long running = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        running += x;
        pre.at(i + 1) = running;
    }
    long long lo = 0, ans = LLONG_MIN;
    for (int i = 1; i <= n; i++) {
        ans = max(ans, pre.at(i) - lo);
        lo = min(lo, pre.at(i));
    }
    printf("%lld\n", ans);
    return 0;
}
