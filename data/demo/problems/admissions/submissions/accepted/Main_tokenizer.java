import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int k = Integer.parseInt(st.nextToken());
        int t = Integer.parseInt(st.nextToken());
        int[] e = new int[n];
        int m = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) {
            while (!st.hasMoreTokens()) st = new StringTokenizer(br.readLine());
            int s = Integer.parseInt(st.nextToken());
            if (s >= t) e[m++] = s;
        }
        Arrays.sort(e, 0, m);

        int accepted = 0;
        long total = 0;
        int i = m - 1;
        while (i >= 0) {
            int j = i;
            while (j >= 0 && e[j] == e[i]) j--;
            int size = i - j;
            if (accepted + size > k) break;
            accepted += size;
            total += (long) e[i] * size;
            i = j;
        }
        System.out.println(accepted + " " + total);
    }
}
