#include <bits/stdc++.h>
using namespace std;

struct Mint {
    static constexpr uint32_t M = 1000000007u;
    uint32_t v;
    Mint(uint64_t x = 0) : v(uint32_t(x % M)) {}
    Mint operator+(Mint o) const { uint32_t s = v + o.v; return Mint(s >= M ? s - M : s); }
    Mint operator*(Mint o) const { return Mint(uint64_t(v) * o.v); }
};

int main() {
    cin.tie(nullptr)->sync_with_stdio(false);
    size_t R, C;
    cin >> R >> C;
    string line;
    getline(cin, line);            // rest of the first line
    vector<Mint> above(C), here(C);
    for (size_t r = 0; r < R; r++) {
        getline(cin, line);
        while (!line.empty() && (line.back() == '\r' || line.back() == ' ')) line.pop_back();
        for (size_t c = 0; c < C; c++) {
            char ch = line[c];
            if (ch == '#') { here[c] = Mint(0); continue; }
            Mint ways = (r == 0 && c == 0) ? Mint(1) : above[c] + (c ? here[c - 1] : Mint(0));
            here[c] = ch == '.' ? ways : ways * Mint(ch - '0');
        }
        swap(above, here);
    }
    cout << above[C - 1].v << '\n';
}
