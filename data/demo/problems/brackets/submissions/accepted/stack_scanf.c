#include <stdio.h>
#include <stdlib.h>

int main(void) {
    int n;
    if (scanf("%d", &n) != 1) return 0;
    char *s = malloc(n + 2);
    scanf("%s", s);

    int *st = malloc(sizeof(int) * (n + 2));
    int top = 0;
    st[top++] = -1;

    int best = 0;
    long long cnt = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') {
            st[top++] = i;
        } else {
            top--;
            if (top == 0) {
                st[top++] = i;
            } else {
                int len = i - st[top - 1];
                if (len > best) {
                    best = len;
                    cnt = 1;
                } else if (len == best) {
                    cnt++;
                }
            }
        }
    }
    if (best == 0) cnt = 1;
    printf("%d %lld\n", best, cnt);
    free(s);
    free(st);
    return 0;
}
