#include <bits/stdc++.h>
using namespace std;

int main() {
    ios_base::sync_with_stdio(false);
    cin.tie(NULL);
    int n;
    cin >> n;
    long long sum = 0, ans = 0;
    for (int i = 0; i < n; i++) {
        long long x;
        cin >> x;
        sum += x;
        if (sum < 0) sum = 0;   // a negative run never helps
        ans = max(ans, sum);
    }
    cout << ans << endl;
    return 0;
}
