#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* sort values by distributing them into n buckets, then insertion sort inside each bucket */
static void bucket_sort(int *a, int n) {
    int lo = a[0], hi = a[0];
    for (int i = 1; i < n; i++) {
        if (a[i] < lo) lo = a[i];
        if (a[i] > hi) hi = a[i];
    }
    int width = (hi - lo) / n;
    if ((hi - lo) % n != 0) width++;
    int *cnt = calloc(n + 1, sizeof(int));
    int *tmp = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        int b = (a[i] - lo) / width;
        if (b >= n) b = n - 1;
        cnt[b + 1]++;
    }
    for (int b = 0; b < n; b++) cnt[b + 1] += cnt[b];
    int *pos = malloc((n + 1) * sizeof(int));
    memcpy(pos, cnt, (n + 1) * sizeof(int));
    for (int i = 0; i < n; i++) {
        int b = (a[i] - lo) / width;
        if (b >= n) b = n - 1;
        tmp[pos[b]++] = a[i];
    }
    for (int b = 0; b < n; b++) {
        for (int i = cnt[b] + 1; i < cnt[b + 1]; i++) {
            int x = tmp[i], j = i - 1;
            while (j >= cnt[b] && tmp[j] > x) {
                tmp[j + 1] = tmp[j];
                j--;
            }
            tmp[j + 1] = x;
        }
    }
    memcpy(a, tmp, n * sizeof(int));
    free(cnt);
    free(tmp);
    free(pos);
}

int main(void) {
    int n;
    scanf("%d", &n);
    int *s = malloc(n * sizeof(int)), *e = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) scanf("%d %d", &s[i], &e[i]);
    bucket_sort(s, n);
    bucket_sort(e, n);
    int rooms = 0, k = 0;
    long long apart = 0;
    for (int i = 0; i < n; i++) {
        while (k < n && e[k] <= s[i]) k++;
        apart += k;
        if (i + 1 - k > rooms) rooms = i + 1 - k;
    }
    printf("%d %lld\n", rooms, (long long)n * (n - 1) / 2 - apart);
    return 0;
}
