#include <stdio.h>
#include <stdlib.h>

static int cmp_int(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    int *st = malloc(n * sizeof(int));
    int *en = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) scanf("%d %d", &st[i], &en[i]);
    qsort(st, n, sizeof(int), cmp_int);
    qsort(en, n, sizeof(int), cmp_int);

    int rooms = 0, j = 0;
    long long disjoint = 0;
    for (int i = 0; i < n; i++) {
        while (j < n && en[j] <= st[i]) j++;
        disjoint += j;               /* meetings finished before this one starts */
        if (i + 1 - j > rooms) rooms = i + 1 - j;
    }
    long long total = (long long)n * (n - 1) / 2;
    printf("%d %lld\n", rooms, total - disjoint);
    free(st);
    free(en);
    return 0;
}
