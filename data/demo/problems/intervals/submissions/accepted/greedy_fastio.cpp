#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

static char ibuf[1 << 25];
size_t ipos = 0, ilen = 0;

inline ll nextInt() {
    while (ipos < ilen && (ibuf[ipos] < '0' || ibuf[ipos] > '9')) ipos++;
    ll v = 0;
    while (ipos < ilen && ibuf[ipos] >= '0' && ibuf[ipos] <= '9') v = v * 10 + (ibuf[ipos++] - '0');
    return v;
}

int main() {
    ilen = fread(ibuf, 1, sizeof(ibuf), stdin);
    int n = (int)nextInt();
    vector<array<ll, 2>> v(n);
    for (int i = 0; i < n; i++) {
        ll a = nextInt(), b = nextInt();
        v[i] = {b, a};
    }
    sort(v.begin(), v.end());
    ll prevEnd = LLONG_MIN;
    int chosen = 0;
    for (int i = 0; i < n; i++) {
        if (v[i][1] <= prevEnd) continue;   // shares a day with the last accepted one
        chosen++;
        prevEnd = v[i][0];
    }
    printf("%d\n", chosen);
}
