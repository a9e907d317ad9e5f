#include <cstdio>

int main() {
    int n;
    scanf("%d", &n);
    long long cur = 0;
    int best = -1000000000;
    for (int i = 0; i < n; i++) {
        int v;
        scanf("%d", &v);
        cur = (cur > 0 ? cur : 0) + v;
        if (cur > best) best = cur;
    }
    printf("%d\n", best);
    return 0;
}
