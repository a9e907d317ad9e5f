#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    const int LIMIT = 5000000;
    vector<char> composite(LIMIT + 1, 0);
    composite[0] = composite[1] = 1;
    for (int i = 2; 1LL * i * i <= LIMIT; i++)
        if (!composite[i])
            for (int j = i * i; j <= LIMIT; j += i) composite[j] = 1;
    vector<int> pref(LIMIT + 1, 0);
    for (int i = 1; i <= LIMIT; i++) pref[i] = pref[i - 1] + !composite[i];

    int q;
    cin >> q;
    while (q--) {
        int l, r;
        cin >> l >> r;
        cout << prefix[r] - prefix[l - 1] << '\n';
    }
}
