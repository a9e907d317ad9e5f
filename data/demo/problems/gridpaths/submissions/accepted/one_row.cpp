#include <cstdio>
#include <string>
#include <vector>
#include <iostream>

using namespace std;

static const int MOD = 1000000007;

int main() {
    int R, C;
    if (!(cin >> R >> C)) return 0;
    auto weight = [](char c) -> int {
        if (c == '#') return 0;
        if (c == '.') return 1;
        return c - '0';
    };
    vector<int> cur(C, 0);
    string s;
    for (int i = 0; i < R; ++i) {
        cin >> s;
        for (int j = 0; j < C; ++j) {
            int w = weight(s[j]);
            long long v;
            if (i == 0 && j == 0) v = 1;
            else v = cur[j] + (j > 0 ? 1LL * cur[j - 1] : 0LL);
            cur[j] = (int)(1LL * (v % MOD) * w % MOD);
        }
    }
    printf("%d\n", cur[C - 1]);
}
