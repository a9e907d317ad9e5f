#include <stdio.h>
#include <stdlib.h>

struct seg { int l, r; };

int cmp(const void *a, const void *b) {
    const struct seg *p = a, *q = b;
    if (p->r < q->r) return -1;
    if (p->r > q->r) return 1;
    return 0;
}

int main(void) {
    int n;
    scanf("%d", &n);
    struct seg *s = malloc(n * sizeof(struct seg));
    for (int i = 0; i < n; i++) scanf("%d%d", &s[i].l, &s[i].r);
    qsort(s, n, sizeof(struct seg), cmp);

    int res = 1;
    int end = s[0].r;
    for (int i = 1; i < n; i++) {
        if (s[i].l >= end) {
            res++;
            end = s[i].r;
        }
    }
    printf("%d\n", res);
    return 0;
}
