#include <bits/stdc++.h>
using namespace std;

int countPairs(vector<long long> &v, long long limit) {
    sort(v.begin(), v.end());
    long long total = 0;
    int lo = 0, hi = (int)v.size() - 1;
    while (lo < hi) {
        if (v[lo] + v[hi] <= limit) {
            total += hi - lo;
            lo++;
        } else {
            hi--;
        }
    }
    return total;
}

int main() {
    int n;
    long long X;
    scanf("%d %lld", &n, &X);
    vector<long long> v(n);
    for (int i = 0; i < n; i++) scanf("%lld", &v[i]);
    long long result = countPairs(v, X);
    printf("%lld\n", result);
    return 0;
}
