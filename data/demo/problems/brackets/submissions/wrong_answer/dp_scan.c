#include <stdio.h>

char s[500005];
int d[500005];

int main(void) {
    int n;
    scanf("%d %s", &n, s);
    int best = 0, cnt = 1;
    for (int i = 1; i < n; i++) {
        if (s[i] == '(') continue;
        if (s[i - 1] == '(') {
            d[i] = (i >= 2 ? d[i - 2] : 0) + 2;
        } else {
            int j = i - d[i - 1] - 1;
            if (j > 0 && s[j] == '(')
                d[i] = d[i - 1] + 2 + (j >= 1 ? d[j - 1] : 0);
        }
        if (d[i] > best) {
            best = d[i];
            cnt = 1;
        } else if (d[i] == best && best > 0) {
            cnt++;
        }
    }
    printf("%d %d\n", best, cnt);
    return 0;
}
