import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int[][] seg = new int[n][];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            int l = Integer.parseInt(st.nextToken());
            int r = Integer.parseInt(st.nextToken());
            seg[i] = new int[]{l, r};
        }
        // short bookings leave the most room for the others
        Arrays.sort(seg, (a, b) -> {
            int la = a[1] - a[0], lb = b[1] - b[0];
            if (la != lb) return Integer.compare(la, lb);
            return Integer.compare(a[0], b[0]);
        });

        TreeMap<Integer, Integer> taken = new TreeMap<>();
        for (int[] s : seg) {
            Map.Entry<Integer, Integer> before = taken.floorEntry(s[0]);
            if (before != null && before.getValue() >= s[0]) continue;
            Map.Entry<Integer, Integer> after = taken.ceilingEntry(s[0]);
            if (after != null && after.getKey() <= s[1]) continue;
            taken.put(s[0], s[1]);
        }
        System.out.println(taken.size());
    }
}
