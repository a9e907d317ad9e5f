import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        int[] s = new int[n], e = new int[n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(in.readLine());
            s[i] = Integer.parseInt(st.nextToken());
            e[i] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(s);
        Arrays.sort(e);
        long total = n * (n - 1) / 2;
        long apart = 0;
        int rooms = 0;
        int p = 0;
        for (int i = 0; i < n; i++) {
            while (p < n && e[p] <= s[i]) p++;
            apart += p;
            rooms = Math.max(rooms, i + 1 - p);
        }
        System.out.println(rooms + " " + (total - apart));
    }
}
