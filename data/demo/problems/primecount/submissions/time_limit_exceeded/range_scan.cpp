#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    const int M = 5000000;
    vector<bool> prime(M + 1, true);
    prime[0] = prime[1] = false;
    for (int i = 2; (long long)i * i <= M; ++i)
        if (prime[i])
            for (int j = i * i; j <= M; j += i) prime[j] = false;

    int q;
    cin >> q;
    for (int t = 0; t < q; ++t) {
        int l, r;
        cin >> l >> r;
        long long c = 0;
        for (int x = l; x <= r; ++x)
            if (prime[x]) ++c;
        cout << c << '\n';
    }
    return 0;
}
