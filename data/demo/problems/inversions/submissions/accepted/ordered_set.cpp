#include <bits/stdc++.h>
#include <ext/pb_ds/assoc_container.hpp>
#include <ext/pb_ds/tree_policy.hpp>
using namespace std;
using namespace __gnu_pbds;

typedef tree<pair<int, int>, null_type, less<pair<int, int>>, rb_tree_tag,
             tree_order_statistics_node_update> ordered_set;

int main() {
    ios_base::sync_with_stdio(0);
    cin.tie(0);
    int n;
    cin >> n;
    ordered_set seen;
    long long cnt = 0;
    for (int i = 0; i < n; i++) {
        int x;
        cin >> x;
        // elements seen so far that are <= x: keys (x, anything) sort before (x, INT_MAX)
        long long notGreater = seen.order_of_key(make_pair(x, INT_MAX));
        cnt += i - notGreater;
        seen.insert(make_pair(x, i));
    }
    cout << cnt << endl;
}
