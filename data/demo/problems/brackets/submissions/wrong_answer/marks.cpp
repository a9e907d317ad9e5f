#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    cin >> n;
    string s;
    cin >> s;
    vector<bool> used(n, false);
    vector<int> st;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') {
            st.push_back(i);
        } else if (!st.empty()) {
            used[st.back()] = true;
            used[i] = true;
            st.pop_back();
        }
    }
    int best = 0, cnt = 1, cur = 0;
    for (int i = 0; i < n; i++) {
        if (used[i]) {
            cur++;
        } else {
            if (cur > best) {
                best = cur;
                cnt = 1;
            } else if (cur == best && cur > 0) {
                cnt++;
            }
            cur = 0;
        }
    }
    cout << best << " " << cnt << endl;
    return 0;
}
