#include <cstdio>
#include <vector>
#include <algorithm>
#include <functional>

int main() {
    int n, k, T;
    if (std::scanf("%d %d %d", &n, &k, &T) != 3) return 0;
    std::vector<int> all(n);
    for (auto &x : all) std::scanf("%d", &x);

    std::vector<int> elig;
    for (int x : all)
        if (x >= T) elig.push_back(x);

    long long sum = 0;
    int accepted = 0;
    if ((int)elig.size() <= k) {
        accepted = (int)elig.size();
        for (int x : elig) sum += x;
    } else {
        // k-th largest eligible score, found in linear time
        std::nth_element(elig.begin(), elig.begin() + (k - 1), elig.end(), std::greater<int>());
        int kth = elig[k - 1];
        int above = 0, same = 0;
        long long aboveSum = 0;
        for (int x : elig) {
            if (x > kth) {
                above++;
                aboveSum += x;
            } else if (x == kth) {
                same++;
            }
        }
        if (above + same <= k) {
            accepted = above + same;
            sum = aboveSum + (long long)kth * same;
        } else {
            accepted = above;
            sum = aboveSum;
        }
    }
    std::printf("%d %lld\n", accepted, sum);
}
