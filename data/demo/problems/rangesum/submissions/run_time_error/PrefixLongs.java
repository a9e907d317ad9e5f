import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());
        long[] pre = new long[n];
        st = new StringTokenizer(br.readLine());
        for (int i = 1; i <= n; i++) {
            long v = Long.parseLong(st.nextToken());
            pre[i] = (i > 1 ? pre[i - 1] : 0) + v;
        }
        PrintWriter out = new PrintWriter(new BufferedOutputStream(System.out));
        while (q-- > 0) {
            st = new StringTokenizer(br.readLine());
            int l = Integer.parseInt(st.nextToken());
            int r = Integer.parseInt(st.nextToken());
            out.println(pre[r] - (l > 1 ? pre[l - 1] : 0));
        }
        out.flush();
    }
}
