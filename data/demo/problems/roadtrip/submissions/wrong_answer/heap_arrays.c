#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef long long ll;

int n, m;
int *head, *nxt, *to;
ll *len, *d;
int *hp, hsz;       /* heap of vertices keyed by d[] (lazy, may hold duplicates) */
ll *hk;

void push(ll key, int v) {
    int i = hsz++;
    while (i > 0 && hk[(i - 1) >> 1] > key) {
        hk[i] = hk[(i - 1) >> 1];
        hp[i] = hp[(i - 1) >> 1];
        i = (i - 1) >> 1;
    }
    hk[i] = key;
    hp[i] = v;
}

void pop(void) {
    ll key = hk[--hsz];
    int v = hp[hsz];
    int i = 0;
    for (;;) {
        int c = 2 * i + 1;
        if (c >= hsz) break;
        if (c + 1 < hsz && hk[c + 1] < hk[c]) c++;
        if (key <= hk[c]) break;
        hk[i] = hk[c];
        hp[i] = hp[c];
        i = c;
    }
    hk[i] = key;
    hp[i] = v;
}

int main(void) {
    scanf("%d %d", &n, &m);
    head = malloc(sizeof(int) * (n + 1));
    memset(head, -1, sizeof(int) * (n + 1));
    nxt = malloc(sizeof(int) * (m + 1));
    to = malloc(sizeof(int) * (m + 1));
    len = malloc(sizeof(ll) * (m + 1));
    for (int i = 0; i < m; i++) {
        int u, v;
        ll w;
        scanf("%d %d %lld", &u, &v, &w);
        to[i] = v;
        len[i] = w;
        nxt[i] = head[u];
        head[u] = i;
    }
    d = malloc(sizeof(ll) * (n + 1));
    for (int i = 0; i <= n; i++) d[i] = -1;
    hp = malloc(sizeof(int) * (m + 2));
    hk = malloc(sizeof(ll) * (m + 2));

    ll answer = -1;
    d[1] = 0;
    push(0, 1);
    while (hsz > 0) {
        ll du = hk[0];
        int u = hp[0];
        pop();
        if (du != d[u]) continue;
        for (int e = head[u]; e != -1; e = nxt[e]) {
            int v = to[e];
            ll nd = du + len[e];
            if (d[v] == -1 || nd < d[v]) {
                d[v] = nd;
                push(nd, v);
                if (v == n && (answer == -1 || nd < answer)) answer = nd;
            }
        }
    }
    printf("%lld\n", answer);
    return 0;
}
