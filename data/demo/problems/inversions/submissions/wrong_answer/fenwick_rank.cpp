#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<int> a(n);
    for (int i = 0; i < n; i++) cin >> a[i];

    vector<int> sorted_vals = a;
    sort(sorted_vals.begin(), sorted_vals.end());
    sorted_vals.erase(unique(sorted_vals.begin(), sorted_vals.end()), sorted_vals.end());
    int m = sorted_vals.size();

    vector<int> bit(m + 1, 0);
    auto add = [&](int i) { for (; i <= m; i += i & -i) bit[i]++; };
    auto sum = [&](int i) { int s = 0; for (; i > 0; i -= i & -i) s += bit[i]; return s; };

    long long inv = 0;
    for (int i = 0; i < n; i++) {
        int r = lower_bound(sorted_vals.begin(), sorted_vals.end(), a[i]) - sorted_vals.begin() + 1;
        // earlier elements greater than a[i]
        inv += i - sum(r - 1);
        add(r);
    }
    cout << inv << "\n";
    return 0;
}
