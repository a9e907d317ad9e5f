#include <stdio.h>
#include <stdlib.h>

static int cmp_ll(const void *a, const void *b) {
    long long x = *(const long long *)a, y = *(const long long *)b;
    return (x > y) - (x < y);
}

int main(void) {
    int n;
    scanf("%d", &n);
    long long *key = malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++) {
        long long l, r;
        scanf("%lld %lld", &l, &r);
        key[i] = (l << 31) | r;      // sort by start, then by end
    }
    qsort(key, n, sizeof(long long), cmp_ll);

    // sweep by start; among overlapping requests keep the one that ends first
    long long mask = (1LL << 31) - 1;
    long long curEnd = -1;
    int answer = 0;
    for (int i = 0; i < n; i++) {
        long long l = key[i] >> 31, r = key[i] & mask;
        if (l > curEnd) {
            answer++;
            curEnd = r;
        } else if (r < curEnd) {
            curEnd = r;
        }
    }
    printf("%d\n", answer);
    free(key);
    return 0;
}
