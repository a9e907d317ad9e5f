#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXN 500000

static char in[MAXN + 64];
static int open_pos[MAXN + 1];
static unsigned char good[MAXN + 1];

int main(void) {
    size_t got = fread(in, 1, sizeof(in) - 1, stdin);
    in[got] = 0;
    char *p = in;
    int n = (int)strtol(p, &p, 10);
    while (*p && *p != '(' && *p != ')') p++;
    char *s = p;

    // match brackets, mark every character that takes part in a matched pair
    int sp = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') open_pos[sp++] = i;
        else if (sp > 0) {
            int j = open_pos[--sp];
            good[i] = good[j] = 1;
        }
    }

    // maximal runs of marked characters are exactly the maximal balanced pieces
    int best = 0, count = 1, run = 0;
    for (int i = 0; i <= n; i++) {
        if (i < n && good[i]) {
            run++;
            continue;
        }
        if (run > best) { best = run; count = 1; }
        else if (run == best && run > 0) count++;
        run = 0;
    }
    printf("%d %d\n", best, count);
    return 0;
}
