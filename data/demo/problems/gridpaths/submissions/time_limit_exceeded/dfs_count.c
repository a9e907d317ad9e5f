#include <stdio.h>
#include <stdlib.h>

#define MOD 1000000007LL

int R, C;
char *g;

long long go(int i, int j) {
    char ch = g[(long)i * C + j];
    if (ch == '#') return 0;
    long long w = (ch == '.') ? 1 : ch - '0';
    if (i == R - 1 && j == C - 1) return w;
    long long s = 0;
    if (i + 1 < R) s += go(i + 1, j);
    if (j + 1 < C) s += go(i, j + 1);
    return s % MOD * w % MOD;
}

int main(void) {
    scanf("%d %d", &R, &C);
    g = malloc((size_t)R * C + 2);
    for (int i = 0; i < R; i++) scanf("%s", g + (long)i * C);
    printf("%lld\n", go(0, 0));
    return 0;
}
