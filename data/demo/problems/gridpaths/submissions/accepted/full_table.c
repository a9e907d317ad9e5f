#include <stdio.h>
#include <stdlib.h>

static const long long P = 1000000007LL;

static int weight_of(char c) {
    if (c == '#') return 0;
    if (c == '.') return 1;
    return c - '0';
}

int main(void) {
    int rows, cols;
    scanf("%d %d", &rows, &cols);
    char *g = malloc((size_t)rows * cols + 1);
    char *tmp = malloc(cols + 2);
    for (int r = 0; r < rows; r++) {
        scanf("%s", tmp);
        for (int c = 0; c < cols; c++) g[(size_t)r * cols + c] = tmp[c];
    }

    long long *cnt = malloc(sizeof(long long) * (size_t)rows * cols);
    for (int r = 0; r < rows; r++) {
        for (int c = 0; c < cols; c++) {
            size_t id = (size_t)r * cols + c;
            int w = weight_of(g[id]);
            if (w == 0) {
                cnt[id] = 0;
                continue;
            }
            long long from = 0;
            if (r == 0 && c == 0) {
                from = 1;
            } else {
                if (r > 0) from += cnt[id - cols];
                if (c > 0) from += cnt[id - 1];
            }
            cnt[id] = from % P * w % P;
        }
    }
    printf("%lld\n", cnt[(size_t)rows * cols - 1]);
    free(g);
    free(tmp);
    free(cnt);
    return 0;
}
