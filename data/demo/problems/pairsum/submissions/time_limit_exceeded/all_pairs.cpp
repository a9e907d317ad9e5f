#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    long long X;
    cin >> n >> X;
    vector<long long> a(n);
    for (auto &v : a) cin >> v;
    // count ordered pairs, then every unordered pair was seen twice
    long long ordered = 0;
    for (int i = 0; i < n; i++) {
        for (int j = 0; j < n; j++) {
            if (i != j && a[i] + a[j] <= X) ordered++;
        }
    }
    cout << ordered / 2 << "\n";
    return 0;
}
