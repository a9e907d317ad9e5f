#include <stdio.h>
#include <stdlib.h>

typedef struct { int l, r; } Seg;

static int cmp(const void *a, const void *b) {
    const Seg *x = a, *y = b;
    return (x->r > y->r) - (x->r < y->r);
}

int main(void) {
    int n;
    scanf("%d", &n);
    Seg *s = malloc(sizeof(Seg) * n);
    int *dp = calloc(n, sizeof(int));
    for (int i = 0; i < n; i++) scanf("%d %d", &s[i].l, &s[i].r);
    qsort(s, n, sizeof(Seg), cmp);

    /* dp[i] = most requests we can accept if request i is the last one */
    int best = 0;
    for (int i = 0; i < n; i++) {
        int prev = 0;
        for (int j = 0; j < n; j++) {
            if (s[j].r < s[i].l && dp[j] > prev) prev = dp[j];
        }
        dp[i] = prev + 1;
        if (dp[i] > best) best = dp[i];
    }
    printf("%d\n", best);
    return 0;
}
