#include <stdio.h>
#include <stdlib.h>

typedef long long ll;

ll hk[400005];
int hv[400005], hn;

void push(ll k, int v) {
    int i = hn++;
    while (i > 0 && hk[(i - 1) / 2] > k) {
        hk[i] = hk[(i - 1) / 2];
        hv[i] = hv[(i - 1) / 2];
        i = (i - 1) / 2;
    }
    hk[i] = k;
    hv[i] = v;
}

void pop(void) {
    ll k = hk[--hn];
    int v = hv[hn], i = 0;
    while (2 * i + 1 < hn) {
        int c = 2 * i + 1;
        if (c + 1 < hn && hk[c + 1] < hk[c]) c++;
        if (k <= hk[c]) break;
        hk[i] = hk[c];
        hv[i] = hv[c];
        i = c;
    }
    hk[i] = k;
    hv[i] = v;
}

int main(void) {
    int n, m;
    scanf("%d %d", &n, &m);
    int *head = malloc(sizeof(int) * (n + 1)), *nxt = malloc(sizeof(int) * (m + 1)), *to = malloc(sizeof(int) * (m + 1));
    ll *w = malloc(sizeof(ll) * (m + 1));
    for (int i = 1; i <= n; i++) head[i] = -1;
    for (int i = 0; i < m; i++) {
        int u;
        scanf("%d %d %lld", &u, &to[i], &w[i]);
        nxt[i] = head[u];
        head[u] = i;
    }
    ll *d = malloc(sizeof(ll) * (n + 1));
    for (int i = 1; i <= n; i++) d[i] = -1;
    d[1] = 0;
    push(0, 1);
    while (hn > 0) {
        ll du = hk[0];
        int u = hv[0];
        pop();
        if (du != d[u]) continue;
        for (int e = head[u]; e != -1; e = nxt[e]) {
            int v = to[e];
            if (dist[v] == -1 || du + w[e] < dist[v]) {
                d[v] = du + w[e];
                push(d[v], v);
            }
        }
    }
    printf("%lld\n", d[n]);
    return 0;
}
