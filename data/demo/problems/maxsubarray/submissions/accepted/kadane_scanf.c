#include <stdio.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    long long best = 0, cur = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        scanf("%lld", &x);
        if (i == 0 || cur < 0) cur = x;
        else cur += x;
        if (i == 0 || cur > best) best = cur;
    }
    printf("%lld\n", best);
    return 0;
}
