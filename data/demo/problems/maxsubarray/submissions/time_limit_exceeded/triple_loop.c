#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

int main(void) {
    int n;
    scanf("%d", &n);
    long long *a = malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    long long best = LLONG_MIN;
    for (int l = 0; l < n; l++) {
        for (int r = l; r < n; r++) {
            long long sum = 0;
            for (int k = l; k <= r; k++) sum += a[k];
            if (sum > best) best = sum;
        }
    }
    printf("%lld\n", best);
    return 0;
}
