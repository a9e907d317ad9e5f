#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long long ll;

static char *in;
static size_t at;

static ll read_ll(void) {
    while (in[at] != '-' && (in[at] < '0' || in[at] > '9')) at++;
    int neg = 0;
    if (in[at] == '-') {
        neg = 1;
        at++;
    }
    ll v = 0;
    while (in[at] >= '0' && in[at] <= '9') v = v * 10 + (in[at++] - '0');
    return neg ? -v : v;
}

static void merge_sort(ll *a, ll *tmp, int lo, int hi) {
    if (hi - lo < 2) return;
    int mid = (lo + hi) / 2;
    merge_sort(a, tmp, lo, mid);
    merge_sort(a, tmp, mid, hi);
    int i = lo, j = mid, k = lo;
    while (i < mid && j < hi) tmp[k++] = (a[i] <= a[j]) ? a[i++] : a[j++];
    while (i < mid) tmp[k++] = a[i++];
    while (j < hi) tmp[k++] = a[j++];
    memcpy(a + lo, tmp + lo, (hi - lo) * sizeof(ll));
}

/* number of elements in a[from..n) that are <= key */
static int count_le(const ll *a, int from, int n, ll key) {
    int lo = from, hi = n;
    while (lo < hi) {
        int mid = lo + (hi - lo) / 2;
        if (a[mid] <= key) lo = mid + 1;
        else hi = mid;
    }
    return lo - from;
}

int main(void) {
    size_t cap = 1 << 20, len = 0, r;
    in = malloc(cap + 1);
    while ((r = fread(in + len, 1, cap - len, stdin)) > 0) {
        len += r;
        if (len == cap) {
            cap <<= 1;
            in = realloc(in, cap + 1);
        }
    }
    in[len] = '\0';

    int n = (int)read_ll();
    ll X = read_ll();
    ll *a = malloc(sizeof(ll) * n), *tmp = malloc(sizeof(ll) * n);
    for (int i = 0; i < n; i++) a[i] = read_ll();
    merge_sort(a, tmp, 0, n);

    ll total = 0;
    for (int i = 0; i < n; i++) total += count_le(a, i + 1, n, X - a[i]);
    printf("%lld\n", total);
    return 0;
}
