#include <stdio.h>
#include <stdlib.h>
#include <limits.h>

#define MAXN 200005
#define MAXM 200005

int head[MAXN], nxt[MAXM], dst[MAXM];
long long wt[MAXM];
long long dist[MAXN];
int heap[MAXN], where[MAXN], hs = 0;   /* where[v] = position of v in heap, -1 if absent */

static int rd(void) {
    int c = getchar(), x = 0;
    while (c < '0' || c > '9') c = getchar();
    while (c >= '0' && c <= '9') { x = x * 10 + (c - '0'); c = getchar(); }
    return x;
}

static void swap_at(int a, int b) {
    int t = heap[a]; heap[a] = heap[b]; heap[b] = t;
    where[heap[a]] = a;
    where[heap[b]] = b;
}

static void up(int i) {
    while (i > 0 && dist[heap[(i - 1) / 2]] > dist[heap[i]]) {
        swap_at(i, (i - 1) / 2);
        i = (i - 1) / 2;
    }
}

static void down(int i) {
    for (;;) {
        int best = i, c1 = 2 * i + 1, c2 = 2 * i + 2;
        if (c1 < hs && dist[heap[c1]] < dist[heap[best]]) best = c1;
        if (c2 < hs && dist[heap[c2]] < dist[heap[best]]) best = c2;
        if (best == i) return;
        swap_at(i, best);
        i = best;
    }
}

int main(void) {
    int n = rd(), m = rd();
    for (int i = 1; i <= n; i++) { head[i] = -1; dist[i] = LLONG_MAX; where[i] = -1; }
    for (int i = 0; i < m; i++) {
        int u = rd(), v = rd();
        wt[i] = rd();
        dst[i] = v;
        nxt[i] = head[u];
        head[u] = i;
    }
    dist[1] = 0;
    heap[hs] = 1; where[1] = hs; hs++;
    while (hs > 0) {
        int u = heap[0];
        swap_at(0, hs - 1);
        hs--;
        where[u] = -2;              /* finished */
        if (hs > 0) down(0);
        if (u == n) break;
        for (int e = head[u]; e != -1; e = nxt[e]) {
            int v = dst[e];
            if (where[v] == -2) continue;
            long long cand = dist[u] + wt[e];
            if (cand < dist[v]) {
                dist[v] = cand;
                if (where[v] == -1) {
                    heap[hs] = v; where[v] = hs; hs++;
                }
                up(where[v]);
            }
        }
    }
    if (dist[n] == LLONG_MAX) printf("-1\n");
    else printf("%lld\n", dist[n]);
    return 0;
}
