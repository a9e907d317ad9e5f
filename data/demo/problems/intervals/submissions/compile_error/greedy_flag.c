#include <stdio.h>
#include <stdlib.h>

typedef struct { int l, r; } Seg;

int by_r(const void *a, const void *b) {
    const Seg *x = a, *y = b;
    return (x->r > y->r) - (x->r < y->r);
}

int main(void) {
    int n;
    scanf("%d", &n);
    Seg *s = malloc(sizeof(Seg) * n);
    for (int i = 0; i < n; i++) scanf("%d %d", &s[i].l, &s[i].r);
    qsort(s, n, sizeof(Seg), by_r);
    int cnt = 0, end = -1;
    for (int i = 0; i < n; i++) {
        bool ok = s[i].l > end;
        if (ok) {
            cnt++;
            end = s[i].r;
        }
    }
    printf("%d\n", cnt);
    return 0;
}
