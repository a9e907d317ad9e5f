#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<long long> a(n);
    for (int i = 0; i < n; i++) cin >> a[i];

    long long best = LLONG_MIN;
    // try every window length and slide it across the ledger
    for (int len = 1; len <= n; len++) {
        long long window = 0;
        for (int i = 0; i < len; i++) window += a[i];
        best = max(best, window);
        for (int i = len; i < n; i++) {
            window += a[i] - a[i - len];
            best = max(best, window);
        }
    }
    cout << best << endl;
    return 0;
}
