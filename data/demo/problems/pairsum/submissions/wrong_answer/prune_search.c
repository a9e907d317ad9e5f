#include <stdio.h>
#include <stdlib.h>

int cmp(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return x < y ? -1 : (x > y ? 1 : 0);
}

/* index of the first element > key in a[lo..hi) */
int upper(long long *a, int lo, int hi, long long key) {
    while (lo < hi) {
        int mid = (lo + hi) / 2;
        if (a[mid] <= key) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int main() {
    int n;
    long long x;
    scanf("%d %lld", &n, &x);
    long long *a = malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++) scanf("%lld", &a[i]);
    qsort(a, n, sizeof(long long), cmp);

    long long ans = 0;
    for (int i = 0; i < n; i++) {
        if (a[i] > x) break;  /* the rest are even larger */
        ans += upper(a, i + 1, n, x - a[i]) - (i + 1);
    }
    printf("%lld\n", ans);
    return 0;
}
