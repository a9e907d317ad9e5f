#include <stdio.h>
#include <stdlib.h>

static int *L, *R, *idx, *tmp;

static int readInt(void) {
    int c = getchar();
    while (c < '0' || c > '9') c = getchar();
    int x = 0;
    while (c >= '0' && c <= '9') {
        x = x * 10 + (c - '0');
        c = getchar();
    }
    return x;
}

/* stable merge sort of idx[lo..hi) by right end */
static void msort(int lo, int hi) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    msort(lo, mid);
    msort(mid, hi);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) {
        if (R[idx[i]] <= R[idx[j]]) tmp[k++] = idx[i++];
        else tmp[k++] = idx[j++];
    }
    while (i < mid) tmp[k++] = idx[i++];
    while (j < hi) tmp[k++] = idx[j++];
    for (k = lo; k < hi; k++) idx[k] = tmp[k];
}

int main(void) {
    int n = readInt();
    L = malloc(n * sizeof(int));
    R = malloc(n * sizeof(int));
    idx = malloc(n * sizeof(int));
    tmp = malloc(n * sizeof(int));
    for (int i = 0; i < n; i++) {
        L[i] = readInt();
        R[i] = readInt();
        idx[i] = i;
    }
    msort(0, n);
    int cnt = 0, end = -1;
    for (int k = 0; k < n; k++) {
        int b = idx[k];
        if (L[b] > end) {
            cnt = cnt + 1;
            end = R[b];
        }
    }
    printf("%d\n", cnt);
    return 0;
}
