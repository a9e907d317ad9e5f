#include <stdio.h>
#include <ctype.h>

static long long read_int(void) {
    int c = getchar();
    while (c != '-' && !isdigit(c)) c = getchar();
    int neg = 0;
    if (c == '-') { neg = 1; c = getchar(); }
    long long v = 0;
    while (isdigit(c)) {
        v = v * 10 + (c - '0');
        c = getchar();
    }
    return neg ? -v : v;
}

int main(void) {
    int n = (int)read_int();
    /* answer = max over r of prefix[r] - min(prefix[0..r-1]) */
    long long prefix = 0, lowest = 0;
    long long answer = -4000000000000000000LL;
    for (int r = 1; r <= n; r++) {
        prefix += read_int();
        if (prefix - lowest > answer) answer = prefix - lowest;
        if (prefix < lowest) lowest = prefix;
    }
    printf("%lld\n", answer);
    return 0;
}
