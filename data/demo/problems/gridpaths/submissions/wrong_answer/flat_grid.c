#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007LL

char grid[1000005];

long long w(char c) {
    if (c == '#') return 0;
    if (c == '.') return 1;
    return c - '0';
}

int main(void) {
    int R, C;
    scanf("%d %d", &R, &C);
    for (int i = 0; i < R; i++) scanf("%s", grid + (long)i * C);
    long long *ways = calloc((size_t)R * C, sizeof(long long));
    if (grid[0] != '#') ways[0] = 1;
    for (int i = 0; i < R; i++) {
        for (int j = 0; j < C; j++) {
            long idx = (long)i * C + j;
            if (grid[idx] == '#' || idx == 0) continue;
            long long s = 0;
            /* multiply by the passages of the block we come from */
            if (i > 0) s += ways[idx - C] * w(grid[idx - C]) % MOD;
            if (j > 0) s += ways[idx - 1] * w(grid[idx - 1]) % MOD;
            ways[idx] = s % MOD;
        }
    }
    printf("%lld\n", ways[(long)R * C - 1]);
    return 0;
}
