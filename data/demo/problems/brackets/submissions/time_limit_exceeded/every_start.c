#include <stdio.h>

static char s[500005];

int main(void) {
    int n;
    scanf("%d", &n);
    scanf("%s", s);
    int best = 0, cnt = 1;
    for (int i = 0; i < n; i++) {
        int bal = 0;
        for (int j = i; j < n; j++) {
            if (s[j] == '(') bal++;
            else bal--;
            if (bal < 0) break;
            if (bal == 0) {
                int len = j - i + 1;
                if (len > best) {
                    best = len;
                    cnt = 1;
                } else if (len == best) {
                    cnt++;
                }
            }
        }
    }
    printf("%d %d\n", best, cnt);
    return 0;
}
