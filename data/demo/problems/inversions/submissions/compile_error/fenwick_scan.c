#include <stdio.h>
#include <stdlib.h>

int cmp(const void *x, const void *y) {
    int p = *(const int *)x, q = *(const int *)y;
    return p < q ? -1 : p > q;
}

int main(void) {
    int n;
    scanf("%d", &n);
    int *a = malloc(n * sizeof(int));
    int *s = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        scanf("%d", &a[i]);
        s[i] = a[i];
    }
    qsort(s, n, sizeof(int), cmp);
    int m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || s[m - 1] != s[i]) s[m++] = s[i];

    int *tree = calloc(m + 1, sizeof(int));
    long long count = 0;
    for (int i = 0; i < n; i++) {
        int lo = 0, hi = m - 1;
        while (lo < hi) {
            int mid = (lo + hi) / 2;
            if (s[mid] < a[i]) lo = mid + 1; else hi = mid;
        }
        int r = lo + 1, le = 0;
        for (int k = r; k > 0; k -= k & -k) le += tree[k];
        cnt += i - le;
        for (int k = r; k <= m; k += k & -k) tree[k]++;
    }
    printf("%lld\n", count);
    return 0;
}
