#include <stdio.h>
#include <stdlib.h>

typedef struct { int start, finish; } Req;

static int compareFinish(const void *x, const void *y) {
    const Req *a = (const Req *)x, *b = (const Req *)y;
    return (a->finish > b->finish) - (a->finish < b->finish);
}

int main(void) {
    int n;
    scanf("%d", &n);
    Req *req = (Req *)malloc(sizeof(Req) * n);
    for (int i = 0; i < n; i++) scanf("%d %d", &req[i].start, &req[i].finish);
    qsort(req, n, sizeof(Req), compareFinish);

    int count = 1;
    int lastFinish = req[0].finish;
    for (int i = 1; i < n - 1; i++) {
        if (req[i].start > lastFinish) {
            count++;
            lastFinish = req[i].finish;
        }
    }
    printf("%d\n", count);
    free(req);
    return 0;
}
