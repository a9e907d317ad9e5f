#include <stdio.h>

long long pref[200001];

int main(void)
{
    int n, q;
    scanf("%d %d", &n, &q);
    for (int i = 1; i <= n; i++) {
        long long x;
        scanf("%lld", &x);
        pref[i] = pref[i - 1] + x
    }
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%lld\n", pref[r] - pref[l - 1]);
    }
    return 0;
}
