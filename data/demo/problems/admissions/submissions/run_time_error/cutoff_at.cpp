#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n, k;
    long long T;
    cin >> n >> k >> T;
    vector<long long> el;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        if (x >= T) el.push_back(x);
    }
    sort(el.begin(), el.end(), greater<long long>());

    long long accepted = 0, total = 0;
    if ((int)el.size() < k) {
        accepted = el.size();
        for (long long x : el) total += x;
    } else {
        long long v = el.at(k - 1);
        int upto = k;
        if (el.at(k) == v) {
            while (upto > 0 && el.at(upto - 1) == v) upto--;
        }
        accepted = upto;
        for (int i = 0; i < upto; i++) total += el.at(i);
    }
    cout << accepted << ' ' << total << endl;
}
