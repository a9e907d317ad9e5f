#include <bits/stdc++.h>
using namespace std;

struct ChangeMaker {
    vector<int> coins;
    vector<int> level;   // fewest coins for every amount, -1 if unreachable

    ChangeMaker(vector<int> c, int limit) : coins(move(c)), level(limit + 1, -1) {
        sort(coins.begin(), coins.end());
        coins.erase(unique(coins.begin(), coins.end()), coins.end());
        vector<int> frontier{0}, next;
        level[0] = 0;
        int depth = 0;
        while (!frontier.empty()) {
            ++depth;
            next.clear();
            for (int v : frontier)
                for (int c : coins) {
                    long long w = (long long)v + c;
                    if (w > limit) break;
                    if (level[w] < 0) {
                        level[w] = depth;
                        next.push_back((int)w);
                    }
                }
            frontier.swap(next);
        }
    }
};

int main() {
    cin.tie(0)->sync_with_stdio(0);
    int k, q;
    cin >> k >> q;
    vector<int> d(k);
    for (int i = 0; i < k; i++) cin >> d[i];
    vector<int> want(q);
    for (int i = 0; i < q; i++) cin >> want[i];
    int limit = *max_element(want.begin(), want.end());

    ChangeMaker cm(d, limit);
    long long total = 0;
    for (int i = 0; i < q; i++) {
        int got = cm.level[want[i]];
        if (got < 0) {
            cout << "-1\n";
            return 0;
        }
        total += got;
    }
    cout << total << '\n';
}
