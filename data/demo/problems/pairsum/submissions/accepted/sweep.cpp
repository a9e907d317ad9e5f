#include <cstdio>
#include <algorithm>
#include <vector>
using namespace std;

int main() {
    int n;
    long long X;
    scanf("%d %lld", &n, &X);
    vector<int> a(n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    sort(a.begin(), a.end());
    long long res = 0;
    for (int l = 0, r = n - 1; l < r;) {
        if (1LL * a[l] + a[r] > X) {
            --r;
        } else {
            res += r - l;
            ++l;
        }
    }
    printf("%lld\n", res);
}
