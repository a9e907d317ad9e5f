#include <bits/stdc++.h>
using namespace std;

const int MAXV = 5000000;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    vector<char> mark(MAXV, 0);
    vector<int> pi(MAXV, 0);
    for (long long i = 2; i < MAXV; i++) {
        if (!mark[i])
            for (long long j = i * i; j < MAXV; j += i) mark[j] = 1;
    }
    for (int i = 2; i < MAXV; i++) pi[i] = pi[i - 1] + (mark[i] ? 0 : 1);

    int q;
    cin >> q;
    while (q--) {
        int l, r;
        cin >> l >> r;
        cout << pi.at(r) - pi.at(l - 1) << '\n';
    }
    return 0;
}
