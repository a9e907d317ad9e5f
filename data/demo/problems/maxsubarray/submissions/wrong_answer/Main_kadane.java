import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(in.readLine().trim());
        StringTokenizer st = new StringTokenizer(in.readLine());
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = Integer.parseInt(st.nextToken());

        int best = a[0];
        int current = a[0];
        for (int i = 1; i < n; i++) {
            current = Math.max(a[i], current + a[i]);
            best = Math.max(best, current);
        }
        System.out.println(best);
    }
}
