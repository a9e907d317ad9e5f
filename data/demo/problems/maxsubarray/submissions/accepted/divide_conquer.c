#include <stdio.h>
#include <stdlib.h>

static long long *a;

static long long max2(long long x, long long y) { return x > y ? x : y; }

/* best sum inside a[lo..hi], both ends inclusive */
static long long solve(int lo, int hi) {
    if (lo == hi) return a[lo];
    int mid = lo + (hi - lo) / 2;
    long long res = max2(solve(lo, mid), solve(mid + 1, hi));

    long long s = 0, leftBest = a[mid];
    for (int i = mid; i >= lo; i--) {
        s += a[i];
        leftBest = max2(leftBest, s);
    }
    s = 0;
    long long rightBest = a[mid + 1];
    for (int i = mid + 1; i <= hi; i++) {
        s += a[i];
        rightBest = max2(rightBest, s);
    }
    return max2(res, leftBest + rightBest);
}

static char buf[1 << 16];
static int bufLen = 0, bufPos = 0;

static int nextChar(void) {
    if (bufPos == bufLen) {
        bufLen = (int)fread(buf, 1, sizeof buf, stdin);
        bufPos = 0;
        if (bufLen <= 0) return -1;
    }
    return buf[bufPos++];
}

static long long nextLong(void) {
    int c = nextChar();
    while (c == ' ' || c == '\n' || c == '\r' || c == '\t') c = nextChar();
    int sign = 1;
    if (c == '-') { sign = -1; c = nextChar(); }
    long long v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        c = nextChar();
    }
    return sign * v;
}

int main(void) {
    int n = (int)nextLong();
    a = malloc(sizeof(long long) * (size_t)n);
    for (int i = 0; i < n; i++) a[i] = nextLong();
    printf("%lld\n", solve(0, n - 1));
    free(a);
    return 0;
}
