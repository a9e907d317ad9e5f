#include <bits/stdc++.h>
using namespace std;

int main() {
    ios::sync_with_stdio(false);
    cin.tie(nullptr);
    int n;
    string s;
    cin >> n >> s;

    stack<int> st;
    st.push(-1);
    int best = 0;
    long long cnt = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') {
            st.push(i);
            continue;
        }
        st.pop();
        if (st.empty()) {
            st.push(i);
            continue;
        }
        int len = i - st.top();
        if (len > best) best = len, cnt = 1;
        else if (len == best) cnt++;
    }
    if (best == 0) cnt = 1;
    cout << best << ' ' << cnt << '\n';
    return 0;
}
