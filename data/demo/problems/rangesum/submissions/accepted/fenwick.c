#include <stdio.h>

#define MAXN 200005

static long long bit[MAXN];
static int n;

static int rd(void)
{
    int c, x = 0;
    do {
        c = getchar_unlocked();
    } while (c != EOF && (c < '0' || c > '9'));
    while (c >= '0' && c <= '9') {
        x = 10 * x + (c - '0');
        c = getchar_unlocked();
    }
    return x;
}

static void add(int pos, long long v)
{
    for (; pos <= n; pos += pos & -pos)
        bit[pos] += v;
}

static long long upto(int pos)
{
    long long s = 0;
    for (; pos > 0; pos -= pos & -pos)
        s += bit[pos];
    return s;
}

int main(void)
{
    n = rd();
    int q = rd();
    for (int i = 1; i <= n; i++)
        add(i, rd());
    while (q-- > 0) {
        int l = rd(), r = rd();
        printf("%lld\n", upto(r) - upto(l - 1));
    }
    return 0;
}
