#include <stdio.h>
#include <stdlib.h>

static char buf[1 << 25];
static size_t blen, bpos;

static long long next_num(void)
{
    while (bpos < blen && (buf[bpos] < '0' || buf[bpos] > '9'))
        bpos++;
    long long x = 0;
    while (bpos < blen && buf[bpos] >= '0' && buf[bpos] <= '9')
        x = x * 10 + (buf[bpos++] - '0');
    return x;
}

int main(void)
{
    blen = fread(buf, 1, sizeof(buf), stdin);
    int n = (int)next_num();
    long long *src = malloc(sizeof(long long) * n);
    long long *dst = malloc(sizeof(long long) * n);
    for (int i = 0; i < n; i++)
        src[i] = next_num();

    long long total = 0;
    for (int width = 1; width < n; width *= 2) {
        for (int left = 0; left < n; left += 2 * width) {
            int mid = left + width < n ? left + width : n;
            int right = left + 2 * width < n ? left + 2 * width : n;
            int p = left, q = mid, out = left;
            while (p < mid && q < right) {
                if (src[q] < src[p]) {
                    total += mid - p;
                    dst[out++] = src[q++];
                } else {
                    dst[out++] = src[p++];
                }
            }
            while (p < mid) dst[out++] = src[p++];
            while (q < right) dst[out++] = src[q++];
        }
        long long *t = src;
        src = dst;
        dst = t;
    }
    printf("%lld\n", total);
    return 0;
}
