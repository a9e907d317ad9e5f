#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int readInt(void) {
    int c = getchar();
    while (c != EOF && (c < '0' || c > '9')) c = getchar();
    int v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        c = getchar();
    }
    return v;
}

int main(void) {
    int k = readInt(), q = readInt();
    int *coin = malloc(sizeof(int) * k);
    for (int i = 0; i < k; i++) coin[i] = readInt();
    int *want = malloc(sizeof(int) * q);
    int hi = 0;
    for (int i = 0; i < q; i++) {
        want[i] = readInt();
        if (want[i] > hi) hi = want[i];
    }

    // shortest path from 0: every coin is an edge of length one
    int *dist = malloc(sizeof(int) * (hi + 1));
    int *queue = malloc(sizeof(int) * (hi + 1));
    memset(dist, -1, sizeof(int) * (hi + 1));
    int head = 0, tail = 0;
    dist[0] = 0;
    queue[tail++] = 0;
    while (head < tail) {
        int cur = queue[head++];
        for (int i = 0; i < k; i++) {
            int nxt = cur + coin[i];
            if (nxt <= hi && dist[nxt] == -1) {
                dist[nxt] = dist[cur] + 1;
                queue[tail++] = nxt;
            }
        }
    }

    long long sum = 0;
    for (int i = 0; i < q; i++) {
        if (dist[want[i]] < 0) {
            puts("-1");
            return 0;
        }
        sum += dist[want[i]];
    }
    printf("%lld\n", sum);
    free(coin); free(want); free(dist); free(queue);
    return 0;
}
