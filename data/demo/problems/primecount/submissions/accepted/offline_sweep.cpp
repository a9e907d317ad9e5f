#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

// Answer every query offline: sweep x upward once, and record the running
// prime count at each query endpoint (l - 1 and r).
int main() {
    ios_base::sync_with_stdio(false);
    cin.tie(NULL);
    int q;
    cin >> q;
    vector<int> L(q), R(q);
    int hiVal = 1;
    for (int i = 0; i < q; ++i) {
        cin >> L[i] >> R[i];
        hiVal = max(hiVal, R[i]);
    }

    vector<char> sieve(hiVal + 1, 1);
    sieve[0] = 0;
    if (hiVal >= 1) sieve[1] = 0;
    for (ll i = 2; i * i <= hiVal; ++i)
        if (sieve[i])
            for (ll j = i * i; j <= hiVal; j += i) sieve[j] = 0;

    // events: (position, query index, sign)
    vector<tuple<int, int, int>> ev;
    ev.reserve(2 * q);
    for (int i = 0; i < q; ++i) {
        ev.emplace_back(R[i], i, +1);
        ev.emplace_back(L[i] - 1, i, -1);
    }
    sort(ev.begin(), ev.end());

    vector<ll> res(q, 0);
    int x = 0, running = 0;
    for (auto &e : ev) {
        int pos = get<0>(e);
        while (x < pos) {
            ++x;
            if (sieve[x]) ++running;
        }
        res[get<1>(e)] += (ll)get<2>(e) * running;
    }
    for (int i = 0; i < q; ++i) cout << res[i] << '\n';
    return 0;
}
