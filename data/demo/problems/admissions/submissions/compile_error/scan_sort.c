#include <stdio.h>
#include <stdlib.h>

static int cmp(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x < y) - (x > y);
}

int main(void) {
    int n, k, t;
    scanf("%d %d %d", &n, &k, &t);
    int *e = malloc(sizeof(int) * n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        if (x >= t) e[m++] = x
    }
    qsort(e, m, sizeof(int), cmp);
    int accepted = m;
    if (m > k) {
        accepted = k;
        if (e[k] == e[k - 1]) {
            int v = e[k - 1];
            while (accepted > 0 && e[accepted - 1] == v) accepted--;
        }
    }
    long long total = 0;
    for (int i = 0; i < accepted; i++) total += e[i];
    printf("%d %lld\n", accepted, total);
    return 0;
}
