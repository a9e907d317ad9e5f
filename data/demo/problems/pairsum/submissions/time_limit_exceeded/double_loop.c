#include <stdio.h>

int a[300000];

int main(void) {
    int n;
    long long x;
    scanf("%d %lld", &n, &x);
    for (int i = 0; i < n; i++) scanf("%d", &a[i]);
    long long cnt = 0;
    for (int i = 0; i < n; i++)
        for (int j = i + 1; j < n; j++)
            if ((long long)a[i] + a[j] <= x) cnt++;
    printf("%lld\n", cnt);
    return 0;
}
