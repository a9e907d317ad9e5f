#include <stdio.h>

#define MAXN 200005

long long a[MAXN];
long long s[MAXN];

int main(void) {
    int n, q;
    scanf("%d%d", &n, &q);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    /* s[i] = a[0] + ... + a[i-1] */
    for (int i = 0; i < n; i++) s[i + 1] = s[i] + a[i];
    while (q--) {
        int l, r;
        scanf("%d%d", &l, &r);
        printf("%lld\n", s[r] - s[l] + a[l]);
    }
    return 0;
}
