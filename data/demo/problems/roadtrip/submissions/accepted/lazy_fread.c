#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Dijkstra with a lazy binary heap; input read in one go */

typedef struct { unsigned long long key; int node; } Entry;

static char *buf;
static size_t bpos, blen;

static long long next_ll(void) {
    while (bpos < blen && (buf[bpos] < '0' || buf[bpos] > '9')) bpos++;
    long long x = 0;
    while (bpos < blen && buf[bpos] >= '0' && buf[bpos] <= '9') x = x * 10 + (buf[bpos++] - '0');
    return x;
}

static Entry *pq;
static int pqn;

static void sift_up(int i) {
    Entry e = pq[i];
    while (i > 0) {
        int par = (i - 1) >> 1;
        if (pq[par].key <= e.key) break;
        pq[i] = pq[par];
        i = par;
    }
    pq[i] = e;
}

static void sift_down(int i) {
    Entry e = pq[i];
    for (;;) {
        int c = 2 * i + 1;
        if (c >= pqn) break;
        if (c + 1 < pqn && pq[c + 1].key < pq[c].key) c++;
        if (e.key <= pq[c].key) break;
        pq[i] = pq[c];
        i = c;
    }
    pq[i] = e;
}

int main(void) {
    size_t cap = 1 << 20;
    buf = malloc(cap);
    size_t r;
    while ((r = fread(buf + blen, 1, cap - blen, stdin)) > 0) {
        blen += r;
        if (blen == cap) { cap <<= 1; buf = realloc(buf, cap); }
    }
    int n = (int)next_ll(), m = (int)next_ll();
    int *first = malloc(sizeof(int) * (n + 1));
    int *link = malloc(sizeof(int) * (m + 1));
    int *target = malloc(sizeof(int) * (m + 1));
    long long *cost = malloc(sizeof(long long) * (m + 1));
    memset(first, -1, sizeof(int) * (n + 1));
    for (int i = 0; i < m; i++) {
        int a = (int)next_ll(), b = (int)next_ll();
        cost[i] = next_ll();
        target[i] = b;
        link[i] = first[a];
        first[a] = i;
    }
    unsigned long long *best = malloc(sizeof(unsigned long long) * (n + 1));
    char *done = calloc(n + 1, 1);
    for (int i = 0; i <= n; i++) best[i] = ~0ULL;
    pq = malloc(sizeof(Entry) * (m + 2));
    best[1] = 0;
    pq[pqn].key = 0; pq[pqn].node = 1; pqn++;
    while (pqn) {
        Entry top = pq[0];
        pq[0] = pq[--pqn];
        if (pqn) sift_down(0);
        int x = top.node;
        if (done[x]) continue;
        done[x] = 1;
        for (int e = first[x]; e != -1; e = link[e]) {
            unsigned long long nd = top.key + (unsigned long long)cost[e];
            int y = target[e];
            if (nd < best[y]) {
                best[y] = nd;
                pq[pqn].key = nd; pq[pqn].node = y;
                sift_up(pqn++);
            }
        }
    }
    if (best[n] == ~0ULL) puts("-1");
    else printf("%llu\n", best[n]);
    return 0;
}
