#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    cin >> n;
    vector<long long> a(n);
    for (auto &x : a) cin >> x;

    map<long long, int> id;
    for (auto x : a) id[x] = 0;
    int m = 0;
    for (auto &kv : id) kv.second = ++m;

    vector<int> fen(m);
    long long ans = 0;
    for (int i = 0; i < n; i++) {
        int r = id[a[i]];
        int le = 0;
        for (int k = r; k > 0; k -= k & -k) le += fen.at(k);
        ans += i - le;
        for (int k = r; k <= m; k += k & -k) fen.at(k)++;
    }
    cout << ans << endl;
}
