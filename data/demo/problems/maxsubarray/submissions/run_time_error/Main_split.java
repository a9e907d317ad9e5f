import java.io.*;
import java.util.*;

public class Main {
    static long[] a;

    // returns {total, best prefix, best suffix, best} for a[lo..hi]
    static long[] go(int lo, int hi) {
        if (lo == hi) return new long[]{a[lo], a[lo], a[lo], a[lo]};
        int mid = (lo + hi) / 2;
        long[] L = go(lo, mid);
        long[] R = go(mid, hi);
        long total = L[0] + R[0];
        long pre = Math.max(L[1], L[0] + R[1]);
        long suf = Math.max(R[2], R[0] + L[2]);
        long best = Math.max(Math.max(L[3], R[3]), L[2] + R[1]);
        return new long[]{total, pre, suf, best};
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        StringTokenizer st = new StringTokenizer(br.readLine());
        a = new long[n];
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        System.out.println(go(0, n - 1)[3]);
    }
}
