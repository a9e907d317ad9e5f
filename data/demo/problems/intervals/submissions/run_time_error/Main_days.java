import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        final int MAXD = 1000001;
        // latestStart[d] = latest start day among requests that end on day d
        int[] latestStart = new int[MAXD];
        Arrays.fill(latestStart, -1);
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            int l = Integer.parseInt(st.nextToken());
            int r = Integer.parseInt(st.nextToken());
            latestStart[r] = Math.max(latestStart[r], l);
        }
        int count = 0, lastEnd = -1;
        for (int d = 0; d < MAXD; d++) {
            if (latestStart[d] > lastEnd) {
                count++;
                lastEnd = d;
            }
        }
        System.out.println(count);
    }
}
