#include <iostream>
#include <vector>
#include <algorithm>
using namespace std;

struct Booking {
    int l, r;
};

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<Booking> b(n);
    for (auto &x : b) cin >> x.l >> x.r;
    sort(b.begin(), b.end(), endsEarlier);
    int ans = 0, last = -1;
    for (auto &x : b) {
        if (x.l > last) {
            ans++;
            last = x.r;
        }
    }
    cout << ans << '\n';
}

bool endsEarlier(const Booking &a, const Booking &b) {
    return a.r < b.r;
}
