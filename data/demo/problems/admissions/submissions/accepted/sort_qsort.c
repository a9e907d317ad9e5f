#include <stdio.h>
#include <stdlib.h>

static int cmp_desc(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    if (x > y) return -1;
    if (x < y) return 1;
    return 0;
}

int main(void) {
    int n, k, t;
    if (scanf("%d %d %d", &n, &k, &t) != 3) return 0;
    int *e = malloc(sizeof(int) * (n + 1));
    int m = 0;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        if (x >= t) e[m++] = x;
    }
    qsort(e, m, sizeof(int), cmp_desc);

    int accepted = m;
    if (m > k) {
        accepted = k;
        /* the group at the cut does not fit completely: drop it */
        if (e[k] == e[k - 1]) {
            int v = e[k - 1];
            while (accepted > 0 && e[accepted - 1] == v) accepted--;
        }
    }
    long long total = 0;
    for (int i = 0; i < accepted; i++) total += e[i];
    printf("%d %lld\n", accepted, total);
    free(e);
    return 0;
}
