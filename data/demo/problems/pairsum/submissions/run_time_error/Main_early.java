import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        long x = Long.parseLong(st.nextToken());
        long[] a = new long[n];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) a[i] = Long.parseLong(st.nextToken());
        Arrays.sort(a);

        // if even the two smallest values are too big, nothing fits
        if (a[0] + a[1] > x) {
            System.out.println(0);
            return;
        }
        long res = 0;
        int r = n - 1;
        for (int l = 0; l < r; l++) {
            while (r > l && a[l] + a[r] > x) r--;
            res += r - l;
        }
        System.out.println(res);
    }
}
