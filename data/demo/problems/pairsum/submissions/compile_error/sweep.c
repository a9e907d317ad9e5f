#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void) {
    int n;
    long long X;
    scanf("%d %lld", &n, &X);
    int *a = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    qsort(a, n, sizeof(int), cmp);
    long long pairs = 0;
    int lo = 0, hi = n - 1;
    while (lo < hi) {
        if ((long long)a[lo] + a[hi] <= X) {
            pairs += hi - lo;
            lo++;
        } else {
            hi--;
        }
    }
    printf("%lld\n", pair);
    return 0;
}
