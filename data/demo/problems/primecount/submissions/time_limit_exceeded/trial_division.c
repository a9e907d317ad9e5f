#include <stdio.h>

/* simple approach: test every number of the range */
static int is_prime(int x) {
    if (x < 2) return 0;
    if (x % 2 == 0) return x == 2;
    for (int d = 3; d * d <= x; d += 2)
        if (x % d == 0) return 0;
    return 1;
}

int main(void) {
    int q;
    scanf("%d", &q);
    for (int i = 0; i < q; i++) {
        int l, r;
        scanf("%d %d", &l, &r);
        int count = 0;
        for (int x = l; x <= r; x++)
            if (is_prime(x)) count++;
        printf("%d\n", count);
    }
    return 0;
}
