#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n;
    scanf("%d", &n);
    long long *a = malloc(n * sizeof(long long));
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);

    long long cur = a[0], best = a[0];
    for (int i = 1; i < n - 1; i++) {
        if (cur + a[i] > a[i]) cur = cur + a[i];
        else cur = a[i];
        if (cur > best) best = cur;
    }
    printf("%lld\n", best);
    free(a);
    return 0;
}
