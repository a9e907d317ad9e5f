#include <bits/stdc++.h>
using namespace std;

// Count pairs i < j with a[i] <= a[j], then subtract from the total number of pairs.
int main() {
    int n;
    scanf("%d", &n);
    vector<pair<int, int>> v(n);
    for (int i = 0; i < n; i++) {
        scanf("%d", &v[i].first);
        v[i].second = i;
    }
    sort(v.begin(), v.end());
    vector<int> fen(n + 1, 0);
    long long ordered = 0;
    // process values in increasing order; ties by increasing index
    for (int k = 0; k < n; k++) {
        int idx = v[k].second + 1;
        for (int i = idx; i > 0; i -= i & -i) ordered += fen[i];
        for (int i = idx; i <= n; i += i & -i) fen[i]++;
    }
    long long total = n * (n - 1) / 2;
    printf("%lld\n", total - ordered);
    return 0;
}
