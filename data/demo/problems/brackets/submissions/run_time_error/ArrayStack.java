import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        String s = br.readLine();
        int[] st = new int[n / 2 + 1];
        int sz = 0;
        st[sz++] = -1;
        int best = 0, cnt = 0;
        for (int i = 0; i < n; i++) {
            if (s.charAt(i) == '(') {
                st[sz++] = i;
            } else {
                sz--;
                if (sz == 0) {
                    st[sz++] = i;
                } else {
                    int len = i - st[sz - 1];
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
