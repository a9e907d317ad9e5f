#include <stdio.h>
#include <stdlib.h>

#define MAXV 5000000

static unsigned char flag[MAXV + 1];
static unsigned short upto[MAXV + 1];

int main(void) {
    for (int i = 2; i <= MAXV; i++) flag[i] = 1;
    for (int i = 2; i <= MAXV / i; i++) {
        if (flag[i]) {
            for (int j = i * i; j <= MAXV; j += i) flag[j] = 0;
        }
    }
    for (int i = 1; i <= MAXV; i++) upto[i] = upto[i - 1] + flag[i];

    int q;
    if (scanf("%d", &q) != 1) return 1;
    for (int i = 0; i < q; i++) {
        int lo, hi;
        scanf("%d %d", &lo, &hi);
        int res = upto[hi] - upto[lo - 1];
        printf("%d\n", res);
    }
    return 0;
}
