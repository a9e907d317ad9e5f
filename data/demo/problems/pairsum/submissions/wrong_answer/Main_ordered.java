import java.io.*;
import java.util.*;

public class Main {
    // number of values in sorted a that are <= key
    static int countAtMost(long[] a, long key) {
        int lo = 0, hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] <= key) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        long X = Long.parseLong(st.nextToken());
        long[] a = new long[n];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        Arrays.sort(a);

        // ordered pairs (i, j), i == j allowed
        long ordered = 0;
        for (int i = 0; i < n; i++) ordered += countAtMost(a, X - a[i]);
        // remove i == j: those with a[i] + a[i] <= X
        long self = countAtMost(a, X / 2);
        System.out.println((ordered - self) / 2);
    }
}
