#include <bits/stdc++.h>
using namespace std;

int main() {
    ios_base::sync_with_stdio(false);
    cin.tie(NULL);
    int n;
    string s;
    cin >> n >> s;
    int open = 0, close = 0;
    int best = 0, cnt = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') open++;
        else close++;
        if (open == close) {
            int len = 2 * close;
            if (len > best) {
                best = len;
                cnt = 1;
            } else if (len == best) {
                cnt++;
            }
        } else if (close > open) {
            open = close = 0;
        }
    }
    if (best == 0) cnt = 1;
    cout << best << " " << cnt << "\n";
    return 0;
}
