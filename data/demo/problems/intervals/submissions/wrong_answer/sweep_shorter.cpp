#include <cstdio>
#include <vector>
#include <algorithm>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<pair<long long, long long>> a(n);
    for (auto &p : a) scanf("%lld %lld", &p.first, &p.second);
    sort(a.begin(), a.end());

    long long curL = -1, curR = -1;
    int ans = 0;
    for (int i = 0; i < n; i++) {
        long long l = a[i].first, r = a[i].second;
        if (l > curR) {
            ans++;
            curL = l;
            curR = r;
        } else if (r - l < curR - curL) {
            // overlapping: hold on to the shorter booking instead
            curL = l;
            curR = r;
        }
    }
    printf("%d\n", ans);
    return 0;
}
