#include <stdio.h>
#include <stdlib.h>

int s[200000], e[200000];

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d %d", &s[i], &e[i]);
    qsort(s, n, sizeof(int), compare);
    qsort(e, n, sizeof(int), compare);
    int rooms = 0, j = 0;
    long long apart = 0;
    for (int i = 0; i < n; i++) {
        while (j < n && e[j] <= s[i]) j++;
        apart += j;
        if (i + 1 - j > rooms) rooms = i + 1 - j;
    }
    printf("%d %lld\n", rooms, (long long)n * (n - 1) / 2 - apart);
    return 0;
}

int compare(const void *a, const void *b) {
    int x = *(const int *)a, y = *(const int *)b;
    return (x > y) - (x < y);
}
