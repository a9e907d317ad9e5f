#include <bits/stdc++.h>
using namespace std;

int main() {
    int n;
    string s;
    cin >> n >> s;
    vector<int> st = {-1};
    int best = 0, cnt = 0;
    for (int i = 0; i < n; i++) {
        if (s[i] == '(') {
            st.push_back(i);
        } else {
            st.pop_back();
            if (st.empty()) {
                st.push_back(i);
            } else {
                int len = i - st.back();
                if (len > best) {
                    best = len;
                    count = 1;
                } else if (len == best) {
                    count++;
                }
            }
        }
    }
    if (best == 0) cnt = 1;
    cout << best << " " << cnt << "\n";
}
