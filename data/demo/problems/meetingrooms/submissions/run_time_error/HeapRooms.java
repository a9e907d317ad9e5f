import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int[][] m = new int[n][];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            m[i] = new int[]{Integer.parseInt(st.nextToken()), Integer.parseInt(st.nextToken())};
        }
        Arrays.sort(m, (a, b) -> a[0] != b[0] ? Integer.compare(a[0], b[0]) : Integer.compare(a[1], b[1]));

        PriorityQueue<Integer> ends = new PriorityQueue<>();
        ends.add(m[0][1]);
        int rooms = 1;
        long pairs = 0;
        for (int i = 1; i < n; i++) {
            while (ends.peek() <= m[i][0]) {
                ends.poll();
            }
            pairs += ends.size();
            ends.add(m[i][1]);
            rooms = Math.max(rooms, ends.size());
        }
        System.out.println(rooms + " " + pairs);
    }
}
