#include <stdio.h>
#include <stdlib.h>

static int cmp_int(const void *p, const void *q) {
    int a = *(const int *)p, b = *(const int *)q;
    return (a > b) - (a < b);
}

int main(void) {
    int n;
    long long X;
    scanf("%d %lld", &n, &X);
    int *a = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    qsort(a, n, sizeof(int), cmp_int);

    int count = 0;
    int j = n - 1;
    for (int i = 0; i < n; i++) {
        while (j > i && (long long)a[i] + a[j] > X) j--;
        if (j <= i) break;
        count += j - i;
    }
    printf("%d\n", count);
    return 0;
}
