#include <stdio.h>

int main(void) {
    int n;
    scanf("%d", &n);
    int cur = 0, best = 0;
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        if (i == 0) {
            cur = x;
            best = x;
            continue;
        }
        if (cur > 0) cur = cur + x;
        else cur = x;
        if (cur > best) best = cur;
    }
    printf("%d\n", best);
    return 0;
}
