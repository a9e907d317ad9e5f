#include <stdio.h>
#include <stdlib.h>

#define INF 1000000000000LL

typedef struct { long long d; int v; } Node;

Node *h;
int hn = 0;

void hpush(long long d, int v) {
    int i = hn++;
    while (i && h[(i - 1) / 2].d > d) {
        h[i] = h[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    h[i].d = d;
    h[i].v = v;
}

Node hpop(void) {
    Node res = h[0], last = h[--hn];
    int i = 0;
    while (2 * i + 1 < hn) {
        int c = 2 * i + 1;
        if (c + 1 < hn && h[c + 1].d < h[c].d) c++;
        if (last.d <= h[c].d) break;
        h[i] = h[c];
        i = c;
    }
    h[i] = last;
    return res;
}

int main(void) {
    int n, m;
    scanf("%d %d", &n, &m);
    int *hd = malloc((n + 1) * sizeof(int));
    int *nx = malloc((m + 1) * sizeof(int));
    int *tv = malloc((m + 1) * sizeof(int));
    long long *tw = malloc((m + 1) * sizeof(long long));
    for (int i = 1; i <= n; i++) hd[i] = -1;
    for (int i = 0; i < m; i++) {
        int u;
        scanf("%d %d %lld", &u, &tv[i], &tw[i]);
        nx[i] = hd[u];
        hd[u] = i;
    }
    long long *dist = malloc((n + 1) * sizeof(long long));
    for (int i = 1; i <= n; i++) dist[i] = INF;
    h = malloc((m + 2) * sizeof(Node));
    dist[1] = 0;
    hpush(0, 1);
    while (hn > 0) {
        Node cur = hpop();
        if (cur.d > dist[cur.v]) continue;
        for (int e = hd[cur.v]; e != -1; e = nx[e]) {
            if (cur.d + tw[e] < dist[tv[e]]) {
                dist[tv[e]] = cur.d + tw[e];
                hpush(dist[tv[e]], tv[e]);
            }
        }
    }
    if (dist[n] == INF) printf("-1\n");
    else printf("%lld\n", dist[n]);
    return 0;
}
