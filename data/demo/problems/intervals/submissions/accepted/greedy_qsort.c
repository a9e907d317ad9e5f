#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int l, r;
} Booking;

static int by_end(const void *a, const void *b) {
    const Booking *x = (const Booking *)a;
    const Booking *y = (const Booking *)b;
    if (x->r != y->r) return x->r < y->r ? -1 : 1;
    return 0;
}

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 1;
    Booking *bk = malloc(sizeof(Booking) * n);
    for (int i = 0; i < n; i++) scanf("%d %d", &bk[i].l, &bk[i].r);
    qsort(bk, n, sizeof(Booking), by_end);

    int taken = 0;
    long long lastDay = -1;   /* last day already used by an accepted request */
    for (int i = 0; i < n; i++) {
        if (bk[i].l > lastDay) {
            taken++;
            lastDay = bk[i].r;
        }
    }
    printf("%d\n", taken);
    free(bk);
    return 0;
}
