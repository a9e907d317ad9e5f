#include <stdio.h>

int s[200005], e[200005];

int main(void) {
    int n;
    scanf("%d", &n);
    for (int i = 0; i < n; i++) scanf("%d %d", &s[i], &e[i]);

    long long pairs = 0;
    int rooms = 0;
    for (int i = 0; i < n; i++) {
        int here = 0;  /* meetings running at time s[i] */
        for (int j = 0; j < n; j++) {
            if (s[j] <= s[i] && s[i] < e[j]) here++;
            if (j > i && s[i] < e[j] && s[j] < e[i]) pairs++;
        }
        if (here > rooms) rooms = here;
    }
    printf("%d %lld\n", rooms, pairs);
    return 0;
}
