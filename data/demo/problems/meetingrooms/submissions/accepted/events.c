#include <stdio.h>
#include <stdlib.h>

typedef struct {
    int t;
    int kind; /* 0 = end, 1 = start : ends first when times are equal */
} Event;

static int by_time(const void *pa, const void *pb) {
    const Event *a = pa, *b = pb;
    if (a->t != b->t) return a->t < b->t ? -1 : 1;
    return a->kind - b->kind;
}

static int read_int(void) {
    int c = getchar();
    while (c < '0' || c > '9') c = getchar();
    int v = 0;
    while (c >= '0' && c <= '9') {
        v = v * 10 + (c - '0');
        c = getchar();
    }
    return v;
}

int main(void) {
    int n = read_int();
    Event *ev = malloc(sizeof(Event) * 2 * (size_t)n);
    for (int i = 0; i < n; i++) {
        ev[2 * i].t = read_int();
        ev[2 * i].kind = 1;
        ev[2 * i + 1].t = read_int();
        ev[2 * i + 1].kind = 0;
    }
    qsort(ev, 2 * (size_t)n, sizeof(Event), by_time);

    long long clashes = 0;
    int active = 0, peak = 0;
    for (int k = 0; k < 2 * n; k++) {
        if (ev[k].kind == 1) {
            clashes += active;
            active++;
            if (active > peak) peak = active;
        } else {
            active--;
        }
    }
    printf("%d %lld\n", peak, clashes);
    free(ev);
    return 0;
}
