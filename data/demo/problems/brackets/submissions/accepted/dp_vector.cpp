#include <cstdio>
#include <string>
#include <vector>
#include <iostream>

using namespace std;

int main() {
    int n;
    if (!(cin >> n)) return 0;
    string s;
    cin >> s;
    vector<int> f(n + 1, 0);  // f[i+1]: longest balanced suffix of s[0..i]
    int best = 0, how_many = 0;
    for (int i = 0; i < n; ++i) {
        if (s[i] == '(') continue;
        int prev = f[i];            // longest balanced suffix ending at i-1
        int j = i - prev - 1;       // candidate partner
        if (j < 0 || s[j] != '(') continue;
        f[i + 1] = prev + 2 + f[j];
        if (f[i + 1] > best) {
            best = f[i + 1];
            how_many = 1;
        } else if (f[i + 1] == best) {
            ++how_many;
        }
    }
    if (best == 0) how_many = 1;
    printf("%d %d\n", best, how_many);
}
