#include <stdio.h>
#include <stdlib.h>

int s[200000], e[200000];

int cmp(const void *a, const void *b) {
    int x = *(const int *)a;
    int y = *(const int *)b;
    if (x < y) return -1;
    if (x > y) return 1;
    return 0;
}

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        scanf("%d %d", &s[i], &e[i]);
    }
    qsort(s, n, sizeof(int), cmp);
    qsort(e, n, sizeof(int), cmp);

    int rooms = 0, pairs = 0;
    int j = 0;
    for (int i = 0; i < n; i++) {
        while (j < n && e[j] <= s[i]) j++;
        int running = i - j;   /* meetings already running when this one starts */
        pairs += running;
        if (running + 1 > rooms) rooms = running + 1;
    }
    printf("%d %d\n", rooms, pairs);
    return 0;
}
