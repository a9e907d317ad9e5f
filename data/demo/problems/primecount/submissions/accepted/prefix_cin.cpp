#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);

    const int MAXN = 5000000;
    vector<bool> isPrime(MAXN + 1, true);
    isPrime[0] = isPrime[1] = false;
    for (int i = 2; 1LL * i * i <= MAXN; i++) {
        if (!isPrime[i]) continue;
        for (int j = i * i; j <= MAXN; j += i) isPrime[j] = false;
    }
    vector<int> prefix(MAXN + 1, 0);
    for (int i = 1; i <= MAXN; i++) prefix[i] = prefix[i - 1] + (isPrime[i] ? 1 : 0);

    int q;
    cin >> q;
    string out;
    out.reserve(q * 8);
    for (int i = 0; i < q; i++) {
        int l, r;
        cin >> l >> r;
        out += to_string(prefix[r] - prefix[l - 1]);
        out += '\n';
    }
    cout << out;
    return 0;
}
