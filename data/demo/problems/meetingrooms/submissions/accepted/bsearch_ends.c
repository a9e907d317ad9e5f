#include <stdio.h>
#include <stdlib.h>

int S[200005], E[200005];

int cmp(const void *a, const void *b) {
    return *(int *)a < *(int *)b ? -1 : *(int *)a > *(int *)b;
}

// number of values in sorted a[0..n) that are <= x
int count_le(int *a, int n, int x) {
    int lo = 0, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] <= x) lo = mid + 1;
        else hi = mid;
    }
    return lo;
}

int main() {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d%d", &S[i], &E[i]);
    qsort(S, n, sizeof S[0], cmp);
    qsort(E, n, sizeof E[0], cmp);
    int best = 0;
    long long notClash = 0;
    for (int i = 0; i < n; i++) {
        int done = count_le(E, n, S[i]);
        notClash += done;
        int running = i + 1 - done;
        if (running > best) best = running;
    }
    long long all = 1LL * n * (n - 1) / 2;
    printf("%d %lld\n", best, all - notClash);
    return 0;
}
