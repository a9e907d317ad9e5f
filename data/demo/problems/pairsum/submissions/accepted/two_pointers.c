#include <stdio.h>
#include <stdlib.h>

int cmp(const void *a, const void *b) {
    int x = *(const int *)a;
    int y = *(const int *)b;
    if (x < y) return -1;
    if (x > y) return 1;
    return 0;
}

int main(void) {
    int n;
    long long X;
    scanf("%d %lld", &n, &X);
    int *a = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    qsort(a, n, sizeof(int), cmp);

    long long ans = 0;
    int l = 0, r = n - 1;
    while (l < r) {
        if ((long long)a[l] + a[r] <= X) {
            ans += r - l;   /* a[l] pairs with every index in (l, r] */
            l++;
        } else {
            r--;
        }
    }
    printf("%lld\n", ans);
    free(a);
    return 0;
}
