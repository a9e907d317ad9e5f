#include <stdio.h>
#include <stdlib.h>

/* Every adjacent swap of bubble sort removes exactly one out-of-order pair. */
int main(void)
{
    int n;
    scanf("%d", &n);
    int *a = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++)
        scanf("%d", &a[i]);

    long long swaps = 0;
    for (int pass = 0; pass < n - 1; pass++) {
        int changed = 0;
        for (int i = 0; i + 1 < n - pass; i++) {
            if (a[i] > a[i + 1]) {
                int t = a[i];
                a[i] = a[i + 1];
                a[i + 1] = t;
                swaps++;
                changed = 1;
            }
        }
        if (!changed)
            break;
    }
    printf("%lld\n", swaps);
    free(a);
    return 0;
}
