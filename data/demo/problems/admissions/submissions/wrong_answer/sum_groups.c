#include <stdio.h>
#include <stdlib.h>

int cmp(const void *a, const void *b) {
    return *(const int *)b - *(const int *)a;
}

int main() {
    int n, k, t;
    scanf("%d %d %d", &n, &k, &t);
    int *a = (int *)malloc(n * sizeof(int));
    int m = 0;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        if (x >= t) a[m++] = x;
    }
    qsort(a, m, sizeof(int), cmp);

    int accepted = 0, total = 0;
    int i = 0;
    while (i < m) {
        int j = i;
        while (j < m && a[j] == a[i]) j++;
        if (accepted + (j - i) > k) break;
        for (int p = i; p < j; p++) total += a[p];
        accepted += j - i;
        i = j;
    }
    printf("%d %d\n", accepted, total);
    return 0;
}
