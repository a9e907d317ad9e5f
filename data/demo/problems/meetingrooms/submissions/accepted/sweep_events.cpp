#include <cstdio>
#include <vector>
#include <algorithm>
using namespace std;

int main() {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    vector<pair<int, int>> ev;
    ev.reserve(2 * n);
    for (int i = 0; i < n; ++i) {
        int s, e;
        scanf("%d %d", &s, &e);
        ev.push_back({s, +1});
        ev.push_back({e, -1});
    }
    // (t, -1) sorts before (t, +1): a room is freed before it is taken again
    sort(ev.begin(), ev.end());
    long long clash = 0;
    int cur = 0, mx = 0;
    for (const auto &x : ev) {
        if (x.second == 1) {
            clash += cur;
            mx = max(mx, ++cur);
        } else {
            --cur;
        }
    }
    printf("%d %lld\n", mx, clash);
    return 0;
}
