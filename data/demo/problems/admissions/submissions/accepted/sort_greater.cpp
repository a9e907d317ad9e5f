#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, k;
    long long T;
    cin >> n >> k >> T;
    vector<long long> v;
    v.reserve(n);
    for (int i = 0; i < n; ++i) {
        long long x;
        cin >> x;
        if (x >= T) v.push_back(x);
    }
    sort(v.begin(), v.end(), greater<long long>());
    size_t accepted = v.size();
    if ((int)v.size() > k) {
        long long cutoff = v[k - 1];
        if (v[k] == cutoff) {
            // whole group at the cutoff is rejected
            accepted = lower_bound(v.begin(), v.end(), cutoff, greater<long long>()) - v.begin();
        } else {
            accepted = k;
        }
    }
    long long total = accumulate(v.begin(), v.begin() + accepted, 0LL);
    cout << accepted << ' ' << total << '\n';
    return 0;
}
