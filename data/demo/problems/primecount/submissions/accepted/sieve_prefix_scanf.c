#include <stdio.h>
#include <string.h>

#define MAXV 5000000

static char composite[MAXV + 1];
static int pref[MAXV + 1];

int main(void) {
    composite[0] = composite[1] = 1;
    for (int i = 2; (long long)i * i <= MAXV; i++) {
        if (!composite[i]) {
            for (int j = i * i; j <= MAXV; j += i)
                composite[j] = 1;
        }
    }
    pref[0] = 0;
    for (int i = 1; i <= MAXV; i++)
        pref[i] = pref[i - 1] + (composite[i] ? 0 : 1);

    int q;
    if (scanf("%d", &q) != 1) return 0;
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%d\n", pref[r] - pref[l - 1]);
    }
    return 0;
}
