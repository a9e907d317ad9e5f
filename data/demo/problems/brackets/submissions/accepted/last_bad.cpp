#include <bits/stdc++.h>
using namespace std;

// keep positions of unmatched '(' and the last unmatched ')'
int main() {
    int n;
    scanf("%d", &n);
    vector<char> s(n + 1);
    scanf("%s", s.data());
    vector<int> opens;
    opens.reserve(n);
    int lastBad = -1;
    int longest = 0, ways = 1;
    auto consider = [&](int L) {
        if (L > longest) { longest = L; ways = 1; }
        else if (L == longest) ways++;
    };
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') {
            opens.push_back(i);
        } else if (opens.empty()) {
            lastBad = i;
        } else {
            opens.pop_back();
            int from = opens.empty() ? lastBad : opens.back();
            consider(i - from);
        }
    }
    printf("%d %d\n", longest, ways);
    return 0;
}
