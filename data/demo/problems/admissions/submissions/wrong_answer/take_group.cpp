#include <bits/stdc++.h>
using namespace std;

int main() {
    int n, k;
    long long t;
    scanf("%d %d %lld", &n, &k, &t);
    vector<long long> a;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        if (x >= t) a.push_back(x);
    }
    sort(a.begin(), a.end(), greater<long long>());
    long long accepted = 0, sum = 0;
    for (size_t i = 0; i < a.size(); i++) {
        // once the capacity is reached, only applicants tied with the last one continue
        if (accepted >= k && a[i] != a[i - 1]) break;
        accepted++;
        sum += a[i];
    }
    printf("%lld %lld\n", accepted, sum);
}
