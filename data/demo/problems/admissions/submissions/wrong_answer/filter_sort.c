#include <stdio.h>
#include <stdlib.h>

static int desc(const void *p, const void *q) {
    long long a = *(const long long *)p, b = *(const long long *)q;
    if (a < b) return 1;
    if (a > b) return -1;
    return 0;
}

int main(void) {
    int n, k;
    long long T;
    scanf("%d %d %lld", &n, &k, &T);
    long long *el = malloc(sizeof(long long) * n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        long long s;
        scanf("%lld", &s);
        if (s > T) el[m++] = s;
    }
    qsort(el, m, sizeof(long long), desc);
    int accepted = m < k ? m : k;
    if (m > k && el[k] == el[k - 1]) {
        long long v = el[k - 1];
        while (accepted > 0 && el[accepted - 1] == v) accepted--;
    }
    long long sum = 0;
    for (int i = 0; i < accepted; i++) sum += el[i];
    printf("%d %lld\n", accepted, sum);
    return 0;
}
