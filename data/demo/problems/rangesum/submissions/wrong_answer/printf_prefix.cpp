#include <cstdio>
#include <vector>
using namespace std;

int main() {
    int n, q;
    scanf("%d %d", &n, &q);
    vector<long long> pre(n + 1, 0);
    for (int i = 1; i <= n; i++) {
        long long v;
        scanf("%lld", &v);
        pre[i] = pre[i - 1] + v;
    }
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%d\n", pre[r] - pre[l - 1]);
    }
    return 0;
}
