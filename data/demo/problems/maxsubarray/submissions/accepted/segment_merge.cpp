#include <bits/stdc++.h>
using namespace std;
typedef long long ll;

struct Node {
    ll sum, pre, suf, best;
};

Node leaf(ll v) { return {v, v, v, v}; }

Node combine(const Node &L, const Node &R) {
    Node res;
    res.sum = L.sum + R.sum;
    res.pre = max(L.pre, L.sum + R.pre);
    res.suf = max(R.suf, R.sum + L.suf);
    res.best = max({L.best, R.best, L.suf + R.pre});
    return res;
}

static inline ll readLL() {
    int c = getchar_unlocked();
    while (c != '-' && (c < '0' || c > '9')) c = getchar_unlocked();
    bool neg = false;
    if (c == '-') { neg = true; c = getchar_unlocked(); }
    ll x = 0;
    for (; c >= '0' && c <= '9'; c = getchar_unlocked()) x = x * 10 + (c - '0');
    return neg ? -x : x;
}

int main() {
    int n = (int)readLL();
    // fold the days left to right, keeping the summary of the prefix
    Node acc = leaf(readLL());
    for (int i = 1; i < n; i++) acc = combine(acc, leaf(readLL()));
    printf("%lld\n", acc.best);
    return 0;
}
