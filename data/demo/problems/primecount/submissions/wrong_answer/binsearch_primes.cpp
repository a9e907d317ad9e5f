#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(0);
    const int N = 5000000;
    vector<char> sv(N + 1, 1);
    sv[0] = sv[1] = 0;
    for (long long i = 2; i * i <= N; i++)
        if (sv[i])
            for (long long j = i * i; j <= N; j += i) sv[j] = 0;
    vector<int> pr;
    for (int i = 2; i <= N; i++)
        if (sv[i]) pr.push_back(i);

    int q;
    cin >> q;
    while (q--) {
        int l, r;
        cin >> l >> r;
        int a = lower_bound(pr.begin(), pr.end(), l) - pr.begin();
        int b = lower_bound(pr.begin(), pr.end(), r) - pr.begin();
        cout << b - a << "\n";
    }
}
