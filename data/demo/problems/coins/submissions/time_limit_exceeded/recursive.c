#include <stdio.h>

int k;
int coins[100];

/* fewest coins for amount x, or -1 */
int solve(int x) {
    if (x == 0) return 0;
    int best = -1;
    for (int i = 0; i < k; i++) {
        if (coins[i] <= x) {
            int sub = solve(x - coins[i]);
            if (sub >= 0 && (best < 0 || sub + 1 < best)) best = sub + 1;
        }
    }
    return best;
}

int main(void) {
    int q;
    scanf("%d %d", &k, &q);
    for (int i = 0; i < k; i++) scanf("%d", &coins[i]);
    long long total = 0;
    int impossible = 0;
    for (int j = 0; j < q; j++) {
        int a;
        scanf("%d", &a);
        if (impossible) continue;
        int r = solve(a);
        if (r < 0) impossible = 1;
        else total += r;
    }
    if (impossible) printf("-1\n");
    else printf("%lld\n", total);
    return 0;
}
