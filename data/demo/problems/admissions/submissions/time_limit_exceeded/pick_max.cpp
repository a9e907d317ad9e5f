#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, k, t;
    scanf("%d %d %d", &n, &k, &t);
    vector<int> pool;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        if (x >= t) pool.push_back(x);
    }
    // pick the best remaining applicant k times
    vector<int> chosen;
    while ((int)chosen.size() < k && !pool.empty()) {
        auto it = max_element(pool.begin(), pool.end());
        chosen.push_back(*it);
        *it = pool.back();
        pool.pop_back();
    }
    int accepted = chosen.size();
    if (!pool.empty() && accepted > 0) {
        int last = chosen.back();
        if (*max_element(pool.begin(), pool.end()) == last) {
            while (accepted > 0 && chosen[accepted - 1] == last) accepted--;
        }
    }
    long long total = 0;
    for (int i = 0; i < accepted; i++) total += chosen[i];
    printf("%d %lld\n", accepted, total);
    return 0;
}
