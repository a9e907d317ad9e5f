#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    scanf("%d", &n);
    vector<long long> S(n), E(n);
    for (int i = 0; i < n; i++) scanf("%lld %lld", &S[i], &E[i]);
    vector<long long> ss = S, ee = E;
    sort(ss.begin(), ss.end());
    sort(ee.begin(), ee.end());

    long long pairs = 0;
    int rooms = 0;
    for (int i = 0; i < n; i++) {
        // meetings that started before S[i] and are still running at S[i]
        long long before = lower_bound(ss.begin(), ss.end(), S[i]) - ss.begin();
        long long ended = upper_bound(ee.begin(), ee.end(), S[i]) - ee.begin();
        pairs += before - ended;
        long long upto = upper_bound(ss.begin(), ss.end(), S[i]) - ss.begin();
        rooms = max(rooms, (int)(upto - ended));
    }
    printf("%d %lld\n", rooms, pairs);
    return 0;
}
