#include <stdio.h>

#define LIM 5000000

char notPrime[LIM + 1];
int before[LIM + 1];

int main() {
    int q, l, r;
    notPrime[0] = notPrime[1] = 1;
    for (int i = 2; i * i <= LIM; i++)
        if (!notPrime[i])
            for (int j = i * i; j <= LIM; j += i)
                notPrime[j] = 1;
    for (int i = 1; i <= LIM; i++)
        before[i] = before[i - 1] + !notPrime[i];
    scanf("%d", &q);
    for (int k = 0; k < q; k++) {
        scanf("%d %d", &l, &r);
        printf("%d\n", before[r] - before[l]);
    }
    return 0;
}
