#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 200005

int n, m;
int val[MAXN], srt[MAXN];
int fw[MAXN];

int readInt(void) {
    int c = getchar_unlocked();
    while (c < '0' || c > '9') c = getchar_unlocked();
    int x = 0;
    while (c >= '0' && c <= '9') {
        x = x * 10 + (c - '0');
        c = getchar_unlocked();
    }
    return x;
}

int cmp(const void *p, const void *q) {
    int x = *(const int *)p, y = *(const int *)q;
    return (x > y) - (x < y);
}

/* 1-based rank of v among the distinct values srt[0..m-1] */
int rankOf(int v) {
    int lo = 0, hi = m - 1;
    while (lo < hi) {
        int md = (lo + hi) / 2;
        if (srt[md] < v) lo = md + 1;
        else hi = md;
    }
    return lo + 1;
}

void add(int i) {
    for (; i <= m; i += i & -i) fw[i]++;
}

int prefix(int i) {
    int s = 0;
    for (; i > 0; i -= i & -i) s += fw[i];
    return s;
}

int main(void) {
    n = readInt();
    for (int i = 0; i < n; i++) {
        val[i] = readInt();
        srt[i] = val[i];
    }
    qsort(srt, n, sizeof(int), cmp);
    m = 0;
    for (int i = 0; i < n; i++)
        if (m == 0 || srt[m - 1] != srt[i]) srt[m++] = srt[i];

    long long answer = 0;
    for (int i = 0; i < n; i++) {
        int r = rankOf(val[i]);
        answer += i - prefix(r);   /* earlier elements strictly greater */
        add(r);
    }
    printf("%lld\n", answer);
    return 0;
}
