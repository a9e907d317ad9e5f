#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, k, t;
    cin >> n >> k >> t;
    map<int, int> freq;
    for (int i = 0; i < n; i++) {
        int s;
        cin >> s;
        if (s >= t) freq[s]++;
    }
    long long accepted = 0, total = 0;
    for (auto it = freq.rbegin(); it != freq.rend(); ++it) {
        if (accepted + it->second > k) break;
        accepted += it->second;
        totl += 1LL * it->first * it->second;
    }
    cout << accepted << " " << total << endl;
}
