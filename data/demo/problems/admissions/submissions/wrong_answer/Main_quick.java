import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        st.nextToken();
        int n = (int) st.nval;
        st.nextToken();
        int k = (int) st.nval;
        st.nextToken();
        long t = (long) st.nval;
        long[] s = new long[n];
        for (int i = 0; i < n; i++) {
            st.nextToken();
            s[i] = (long) st.nval;
        }

        long accepted = 0, total = 0;
        if (n <= k) {
            // everyone fits
            accepted = n;
            for (long x : s) total += x;
        } else {
            long[] e = Arrays.stream(s).filter(x -> x >= t).sorted().toArray();
            int m = e.length;
            int from = 0;
            if (m > k) {
                long cut = e[m - k];
                from = m - k;
                if (e[from - 1] == cut) {
                    while (from < m && e[from] == cut) from++;
                }
            }
            for (int i = from; i < m; i++) {
                accepted++;
                total += e[i];
            }
        }
        System.out.println(accepted + " " + total);
    }
}
