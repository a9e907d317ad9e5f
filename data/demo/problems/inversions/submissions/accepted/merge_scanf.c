#include <stdio.h>
#include <stdlib.h>

static int *a, *tmp;

/* sorts a[lo..hi] and returns the number of inversions inside it */
static long long sort_count(int lo, int hi)
{
    if (lo >= hi)
        return 0;
    int mid = (lo + hi) / 2;
    long long inv = sort_count(lo, mid) + sort_count(mid + 1, hi);

    int i = lo, j = mid + 1, k = lo;
    while (i <= mid && j <= hi) {
        if (a[i] <= a[j]) {
            tmp[k++] = a[i++];
        } else {
            /* a[i..mid] are all greater than a[j] */
            inv += mid - i + 1;
            tmp[k++] = a[j++];
        }
    }
    while (i <= mid) tmp[k++] = a[i++];
    while (j <= hi) tmp[k++] = a[j++];
    for (k = lo; k <= hi; k++)
        a[k] = tmp[k];
    return inv;
}

int main(void)
{
    int n;
    if (scanf("%d", &n) != 1)
        return 0;
    a = malloc(sizeof(int) * n);
    tmp = malloc(sizeof(int) * n);
    for (int i = 0; i < n; i++)
        scanf("%d", &a[i]);
    printf("%lld\n", sort_count(0, n - 1));
    free(a);
    free(tmp);
    return 0;
}
