#include <bits/stdc++.h>
using namespace std;

int main() {
    ios_base::sync_with_stdio(false);
    cin.tie(NULL);
    int n, k, T;
    cin >> n >> k >> T;
    vector<int> s;
    for (int i = 0; i < n; i++) {
        int x;
        cin >> x;
        if (x >= T) s.push_back(x);
    }
    sort(s.rbegin(), s.rend());

    int accepted = 0;
    long long total = 0;
    for (int i = 0; i < (int)s.size();) {
        int j = i;
        while (j < (int)s.size() && s[j] == s[i]) j++;
        int cnt = j - i;
        if (accepted + cnt > k) break;
        accepted += cnt;
        total += s[i] * cnt;
        i = j;
    }
    cout << accepted << " " << total << "\n";
    return 0;
}
