#include <iostream>
#include <vector>
#include <algorithm>

int main() {
    int n;
    std::cin >> n;
    vector<int> s(n), e(n);
    for (int i = 0; i < n; i++) std::cin >> s[i] >> e[i];
    std::sort(s.begin(), s.end());
    std::sort(e.begin(), e.end());
    long long apart = 0;
    int rooms = 0;
    for (int i = 0, j = 0; i < n; i++) {
        while (j < n && e[j] <= s[i]) j++;
        apart += j;
        rooms = std::max(rooms, i + 1 - j);
    }
    std::cout << rooms << " " << 1LL * n * (n - 1) / 2 - apart << "\n";
    return 0;
}
