#include <stdio.h>
#include <stdlib.h>

typedef long long ll;

typedef struct {
    ll d;
    int v;
} Item;

static Item *heap;
static int hsize;

static void push(ll d, int v) {
    int i = hsize++;
    heap[i].d = d;
    heap[i].v = v;
    while (i > 0) {
        int p = (i - 1) / 2;
        if (heap[p].d <= heap[i].d) break;
        Item t = heap[p]; heap[p] = heap[i]; heap[i] = t;
        i = p;
    }
}

static Item pop(void) {
    Item top = heap[0];
    heap[0] = heap[--hsize];
    int i = 0;
    for (;;) {
        int l = 2 * i + 1, r = l + 1, s = i;
        if (l < hsize && heap[l].d < heap[s].d) s = l;
        if (r < hsize && heap[r].d < heap[s].d) s = r;
        if (s == i) break;
        Item t = heap[s]; heap[s] = heap[i]; heap[i] = t;
        i = s;
    }
    return top;
}

int main(void) {
    int n, m;
    if (scanf("%d %d", &n, &m) != 2) return 0;
    int *eu = malloc(sizeof(int) * (m + 1));
    int *ev = malloc(sizeof(int) * (m + 1));
    ll *ew = malloc(sizeof(ll) * (m + 1));
    int *start = calloc(n + 2, sizeof(int));
    for (int i = 0; i < m; i++) {
        scanf("%d %d %lld", &eu[i], &ev[i], &ew[i]);
        start[eu[i] + 1]++;
    }
    for (int i = 1; i <= n + 1; i++) start[i] += start[i - 1];
    int *fill = malloc(sizeof(int) * (n + 2));
    for (int i = 0; i <= n + 1; i++) fill[i] = start[i];
    int *to = malloc(sizeof(int) * (m + 1));
    ll *len = malloc(sizeof(ll) * (m + 1));
    for (int i = 0; i < m; i++) {
        int p = fill[eu[i]]++;
        to[p] = ev[i];
        len[p] = ew[i];
    }

    const ll INF = (ll)4e18;
    ll *dist = malloc(sizeof(ll) * (n + 1));
    for (int i = 1; i <= n; i++) dist[i] = INF;
    heap = malloc(sizeof(Item) * (m + 2));
    dist[1] = 0;
    push(0, 1);
    while (hsize > 0) {
        Item it = pop();
        if (it.d != dist[it.v]) continue;
        int u = it.v;
        for (int k = start[u]; k < start[u + 1]; k++) {
            ll nd = it.d + len[k];
            if (nd < dist[to[k]]) {
                dist[to[k]] = nd;
                push(nd, to[k]);
            }
        }
    }
    printf("%lld\n", dist[n] == INF ? -1LL : dist[n]);
    return 0;
}
