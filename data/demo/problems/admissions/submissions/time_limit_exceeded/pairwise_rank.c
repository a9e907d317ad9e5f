#include <stdio.h>

static int s[300005];

int main(void) {
    int n, k, t;
    scanf("%d %d %d", &n, &k, &t);
    for (int i = 0; i < n; i++) scanf("%d", &s[i]);

    int accepted = 0;
    long long total = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] < t) continue;
        /* how many eligible applicants score at least as much as applicant i */
        int rank = 0;
        for (int j = 0; j < n; j++)
            if (s[j] >= s[i]) rank++;
        if (rank <= k) {
            accepted++;
            total += s[i];
        }
    }
    printf("%d %lld\n", accepted, total);
    return 0;
}
