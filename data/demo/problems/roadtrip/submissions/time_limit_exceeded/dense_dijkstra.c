#include <stdio.h>
#include <stdlib.h>

#define INF 0x3f3f3f3f3f3f3f3fLL

int main(void) {
    int n, m;
    scanf("%d %d", &n, &m);
    int *head = malloc((n + 1) * sizeof(int));
    int *nxt = malloc((m + 1) * sizeof(int));
    int *to = malloc((m + 1) * sizeof(int));
    long long *w = malloc((m + 1) * sizeof(long long));
    for (int i = 1; i <= n; i++) head[i] = -1;
    for (int i = 0; i < m; i++) {
        int u;
        scanf("%d %d %lld", &u, &to[i], &w[i]);
        nxt[i] = head[u];
        head[u] = i;
    }

    long long *dist = malloc((n + 1) * sizeof(long long));
    char *used = calloc(n + 1, 1);
    for (int i = 1; i <= n; i++) dist[i] = INF;
    dist[1] = 0;

    for (int iter = 0; iter < n; iter++) {
        int u = -1;
        for (int v = 1; v <= n; v++) {
            if (!used[v] && (u == -1 || dist[v] < dist[u])) u = v;
        }
        if (dist[u] == INF) break;
        used[u] = 1;
        if (u == n) break;
        for (int e = head[u]; e != -1; e = nxt[e]) {
            if (dist[u] + w[e] < dist[to[e]]) dist[to[e]] = dist[u] + w[e];
        }
    }
    printf("%lld\n", dist[n] == INF ? -1LL : dist[n]);
    return 0;
}
