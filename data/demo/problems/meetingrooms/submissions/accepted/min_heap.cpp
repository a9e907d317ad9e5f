#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<pair<int, int>> m(n);
    for (auto &p : m) cin >> p.first >> p.second;
    sort(m.begin(), m.end());

    priority_queue<int, vector<int>, greater<int>> busy;  // end times of running meetings
    long long pairs = 0;
    size_t rooms = 0;
    for (auto &[s, e] : m) {
        while (!busy.empty() && busy.top() <= s) busy.pop();
        pairs += (long long)busy.size();
        busy.push(e);
        rooms = max(rooms, busy.size());
    }
    cout << rooms << " " << pairs << "\n";
}
