#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static char *in;
static size_t in_len, in_pos;

static char out[1 << 22];
static size_t out_pos;

static long long read_ll(void)
{
    while (in_pos < in_len && (in[in_pos] < '0' || in[in_pos] > '9'))
        in_pos++;
    long long v = 0;
    while (in_pos < in_len && in[in_pos] >= '0' && in[in_pos] <= '9') {
        v = v * 10 + (in[in_pos] - '0');
        in_pos++;
    }
    return v;
}

static void write_ll(long long v)
{
    char tmp[24];
    int len = 0;
    if (out_pos + 24 > sizeof(out)) {
        fwrite(out, 1, out_pos, stdout);
        out_pos = 0;
    }
    do {
        tmp[len++] = (char)('0' + v % 10);
        v /= 10;
    } while (v > 0);
    while (len > 0)
        out[out_pos++] = tmp[--len];
    out[out_pos++] = '\n';
}

int main(void)
{
    size_t cap = 1 << 16;
    in = malloc(cap);
    size_t got;
    while ((got = fread(in + in_len, 1, cap - in_len, stdin)) > 0) {
        in_len += got;
        if (in_len == cap) {
            cap *= 2;
            in = realloc(in, cap);
        }
    }

    int n = (int)read_ll();
    int q = (int)read_ll();
    long long *sum = calloc(n + 1, sizeof(long long));
    for (int i = 1; i <= n; i++)
        sum[i] = sum[i - 1] + read_ll();

    for (int k = 0; k < q; k++) {
        int l = (int)read_ll();
        int r = (int)read_ll();
        write_ll(sum[r] - sum[l - 1]);
    }
    fwrite(out, 1, out_pos, stdout);
    free(sum);
    free(in);
    return 0;
}
