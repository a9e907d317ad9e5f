#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

int main() {
    int n, k, t;
    scanf("%d %d %d", &n, &k, &t);
    map<int, int, greater<int>> freq;   // score -> how many applicants have it
    for (int i = 0; i < n; i++) {
        int s;
        scanf("%d", &s);
        if (s >= t) freq[s]++;
    }
    ll accepted = 0, total = 0;
    for (auto &[score, cnt] : freq) {
        if (accepted + cnt > k) break;
        accepted += cnt;
        total += (ll)score * cnt;
    }
    printf("%lld %lld\n", accepted, total);
    return 0;
}
