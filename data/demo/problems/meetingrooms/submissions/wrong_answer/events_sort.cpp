#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<array<int, 2>> ev;
    for (int i = 0; i < n; i++) {
        int s, e;
        cin >> s >> e;
        ev.push_back({s, 0});   // start
        ev.push_back({e, 1});   // end
    }
    sort(ev.begin(), ev.end());
    long long pairs = 0;
    int active = 0, rooms = 0;
    for (auto &x : ev) {
        if (x[1] == 0) {
            pairs += active;
            active++;
            rooms = max(rooms, active);
        } else {
            active--;
        }
    }
    cout << rooms << " " << pairs << "\n";
    return 0;
}
