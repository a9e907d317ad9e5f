import java.io.BufferedReader;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        String s = br.readLine().trim();
        Deque<Integer> st = new ArrayDeque<>();
        st.push(-1);
        int best = 0, cnt = 0;
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) == '(') {
                st.push(i);
            } else {
                st.pop();
                if (st.isEmpty()) {
                    st.push(i);
                } else {
                    int len = i - st.peek();
                    if (len > best) {
                        best = len;
                        cnt = 1;
                    } else if (len == best) {
                        cnt++;
                    }
                }
            }
        }
        if (best == 0) cnt = 1;
        System.out.println(best + " " + cnt);
    }
}
