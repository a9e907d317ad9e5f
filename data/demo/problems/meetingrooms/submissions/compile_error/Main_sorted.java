import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int[] s = new int[n], e = new int[n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            s[i] = Integer.parseInt(st.nextToken());
            e[i] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(s);
        Arrays.sort(e);
        int total = (long) n * (n - 1) / 2;
        long apart = 0;
        int rooms = 0, j = 0;
        for (int i = 0; i < n; i++) {
            while (j < n && e[j] <= s[i]) j++;
            apart += j;
            rooms = Math.max(rooms, i + 1 - j);
        }
        System.out.println(rooms + " " + (total - apart));
    }
}
