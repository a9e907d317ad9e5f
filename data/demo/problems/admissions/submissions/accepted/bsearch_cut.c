#include <stdio.h>
#include <stdlib.h>

static char *buf;
static size_t bpos, blen;

static long long next_num(void) {
    while (bpos < blen && (buf[bpos] < '0' || buf[bpos] > '9')) bpos++;
    long long v = 0;
    while (bpos < blen && buf[bpos] >= '0' && buf[bpos] <= '9') v = v * 10 + (buf[bpos++] - '0');
    return v;
}

static int by_value(const void *p, const void *q) {
    long long a = *(const long long *)p, b = *(const long long *)q;
    return (a > b) - (a < b);
}

/* first index with arr[i] >= key (strict = 0) or arr[i] > key (strict = 1) */
static int first_at_least(const long long *arr, int len, long long key, int strict) {
    int lo = 0, hi = len;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (arr[mid] < key || (strict && arr[mid] == key))
            lo = mid + 1;
        else
            hi = mid;
    }
    return lo;
}

int main(void) {
    size_t cap = 1 << 16;
    buf = malloc(cap);
    size_t got;
    while ((got = fread(buf + blen, 1, cap - blen, stdin)) > 0) {
        blen += got;
        if (blen == cap) {
            cap *= 2;
            buf = realloc(buf, cap);
        }
    }
    int n = (int)next_num();
    long long k = next_num();
    long long t = next_num();
    long long *el = malloc(sizeof(long long) * n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        long long s = next_num();
        if (s >= t) el[m++] = s;
    }
    qsort(el, m, sizeof(long long), by_value);

    int from = 0; /* admitted applicants are el[from..m-1] */
    if (m > k) {
        long long cut = el[m - k];
        int atLeast = m - first_at_least(el, m, cut, 0);
        if (atLeast <= k)
            from = m - atLeast;
        else
            from = first_at_least(el, m, cut, 1);
    }
    long long accepted = m - from, sum = 0;
    for (int i = from; i < m; i++) sum += el[i];
    printf("%lld %lld\n", accepted, sum);
    return 0;
}
