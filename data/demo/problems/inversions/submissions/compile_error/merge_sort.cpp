#include <bits/stdc++.h>
using namespace std;

long long cnt = 0;
vector<int> buf;

void msort(vector<int> &v, int l, int r) {
    if (r - l <= 1) return;
    int m = (l + r) / 2;
    msort(v, l, m);
    msort(v, m, r);
    int i = l, j = m, k = 0;
    while (i < m && j < r) {
        if (v[i] <= v[j]) buf[k++] = v[i++];
        else {
            cnt += m - i;
            buf[k++] = v[j++];
        }
    }
    while (i < m) buf[k++] = v[i++];
    while (j < r) buf[k++] = v[j++]
    copy(buf.begin(), buf.begin() + k, v.begin() + l);
}

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    cin >> n;
    vector<int> v(n);
    for (auto &x : v) cin >> x;
    buf.assign(n, 0);
    msort(v, 0, n);
    cout << cnt << '\n';
}
