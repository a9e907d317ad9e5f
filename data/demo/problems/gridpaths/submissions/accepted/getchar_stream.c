#include <stdio.h>
#include <stdlib.h>

#define MD 1000000007

int main(void) {
    int n, m;
    scanf("%d %d", &n, &m);
    int *f = calloc(m, sizeof(int));   /* f[j]: routes ending in column j of the current row */
    int ch;
    for (int i = 0; i < n; i++) {
        int j = 0;
        while (j < m) {
            ch = getchar();
            if (ch == '\n' || ch == '\r' || ch == ' ') continue;
            int w;
            if (ch == '#') w = 0;
            else if (ch == '.') w = 1;
            else w = ch - '0';
            long long s;
            if (i == 0 && j == 0) s = 1;
            else s = (long long)f[j] + (j ? f[j - 1] : 0);
            f[j] = (int)(s % MD * w % MD);
            j++;
        }
    }
    printf("%d\n", f[m - 1]);
    free(f);
    return 0;
}
