#include <stdio.h>

int main(void) {
    int n;
    scanf("%d", &n);
    long long cur = 0, best = -4000000000000000000LL;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        cur = (cur > 0 ? cur : 0) + x
        if (cur > best) best = cur;
    }
    printf("%lld\n", best);
    return 0;
}
