#include <bits/stdc++.h>
using namespace std;

struct Meeting {
    int s, e;
};

bool overlap(const Meeting &a, const Meeting &b) {
    return a.s < b.e && b.s < a.e;
}

int main() {
    int n;
    cin >> n;
    vector<Meeting> v(n);
    for (auto &m : v) cin >> m.s >> m.e;
    sort(v.begin(), v.end(), [](const Meeting &a, const Meeting &b) { return a.s < b.s; });

    // give every meeting the first room that is free at its start
    vector<int> roomFreeAt;
    for (auto &m : v) {
        bool placed = false;
        for (auto &t : roomFreeAt) {
            if (t <= m.s) {
                t = m.e;
                placed = true;
                break;
            }
        }
        if (!placed) roomFreeAt.push_back(m.e);
    }

    // every meeting counts the meetings it clashes with; each pair is seen twice
    long long seen = 0;
    for (int i = 0; i < n; i++)
        for (int j = 0; j < n; j++)
            if (i != j && overlap(v[i], v[j])) seen++;
    cout << roomFreeAt.size() << " " << seen / 2 << endl;
    return 0;
}
