#include <stdio.h>

#define N 200000

int a[N], b[N];

int merge_count(int l, int r)
{
    if (r - l < 2)
        return 0;
    int m = (l + r) / 2;
    int res = merge_count(l, m) + merge_count(m, r);
    int i = l, j = m, k = l;
    while (i < m && j < r) {
        if (a[i] <= a[j]) {
            b[k++] = a[i++];
        } else {
            res += m - i;
            b[k++] = a[j++];
        }
    }
    while (i < m)
        b[k++] = a[i++];
    while (j < r)
        b[k++] = a[j++];
    for (int t = l; t < r; t++)
        a[t] = b[t];
    return res;
}

int main(void)
{
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++)
        scanf("%d", &a[i]);
    long long ans = merge_count(0, n);
    printf("%lld\n", ans);
    return 0;
}
