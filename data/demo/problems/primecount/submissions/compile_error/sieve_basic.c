#include <stdio.h>

#define MX 5000000

static char c[MX + 1];
static int s[MX + 1];

int main(void) {
    int q
    c[0] = c[1] = 1;
    for (int i = 2; i * i <= MX; i++)
        if (!c[i])
            for (int j = i * i; j <= MX; j += i) c[j] = 1;
    for (int i = 1; i <= MX; i++) s[i] = s[i - 1] + !c[i];
    scanf("%d", &q);
    while (q--) {
        int l, r;
        scanf("%d %d", &l, &r);
        printf("%d\n", s[r] - s[l - 1]);
    }
    return 0;
}
