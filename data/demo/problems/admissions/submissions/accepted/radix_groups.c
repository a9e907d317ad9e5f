// Admissions -- radix sort the eligible scores, then take whole groups from the top.
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static unsigned read_uint(void) {
    int c = getchar();
    while (c < '0' || c > '9') c = getchar();
    unsigned v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (unsigned)(c - '0');
        c = getchar();
    }
    return v;
}

static void radix_sort(unsigned *a, unsigned *tmp, int len) {
    static int cnt[65536];
    for (int shift = 0; shift < 32; shift += 16) {
        memset(cnt, 0, sizeof cnt);
        for (int i = 0; i < len; i++) cnt[(a[i] >> shift) & 0xFFFF]++;
        int pos = 0;
        for (int d = 0; d < 65536; d++) {
            int c = cnt[d];
            cnt[d] = pos;
            pos += c;
        }
        for (int i = 0; i < len; i++) tmp[cnt[(a[i] >> shift) & 0xFFFF]++] = a[i];
        memcpy(a, tmp, sizeof(unsigned) * len);
    }
}

int main(void) {
    int n = (int)read_uint();
    int k = (int)read_uint();
    unsigned T = read_uint();
    unsigned *sc = malloc(sizeof(unsigned) * n);
    unsigned *buf = malloc(sizeof(unsigned) * n);
    int m = 0;
    for (int i = 0; i < n; i++) {
        unsigned x = read_uint();
        if (x >= T) sc[m++] = x;
    }
    radix_sort(sc, buf, m);

    int accepted = 0;
    long long total = 0;
    int hi = m - 1;
    while (hi >= 0) {
        int lo = hi;
        while (lo > 0 && sc[lo - 1] == sc[hi]) lo--;
        int group = hi - lo + 1;
        if (accepted + group > k) break;
        accepted += group;
        total += (long long)sc[hi] * group;
        hi = lo - 1;
    }
    printf("%d %lld\n", accepted, total);
    return 0;
}
