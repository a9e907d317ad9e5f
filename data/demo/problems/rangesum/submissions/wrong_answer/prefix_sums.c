#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    int n, q;
    scanf("%d %d", &n, &q);
    int *p = malloc((n + 1) * sizeof(int));
    p[0] = 0;
    for (int i = 1; i <= n; i++) {
        int x;
        scanf("%d", &x);
        p[i] = p[i - 1] + x;
    }
    for (int i = 0; i < q; i++) {
        int l, r;
        scanf("%d %d", &l, &r);
        long long ans = p[r] - p[l - 1];
        printf("%lld\n", ans);
    }
    free(p);
    return 0;
}
