import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        int q = Integer.parseInt(in.readLine().trim());
        int[][] qs = new int[q][2];
        int maxR = 2;
        for (int i = 0; i < q; i++) {
            StringTokenizer st = new StringTokenizer(in.readLine());
            qs[i][0] = Integer.parseInt(st.nextToken());
            qs[i][1] = Integer.parseInt(st.nextToken());
            maxR = Math.max(maxR, qs[i][1]);
        }

        boolean[] comp = new boolean[maxR + 1];
        comp[0] = comp[1] = true;
        for (long i = 2; i * i <= maxR; i++) {
            if (!comp[(int) i]) {
                for (long j = i * i; j <= maxR; j += i) comp[(int) j] = true;
            }
        }
        int[] pc = new int[maxR + 1];
        for (int i = 1; i <= maxR; i++) pc[i] = pc[i - 1] + (comp[i] ? 0 : 1);

        // process queries by right end
        Arrays.sort(qs, (a, b) -> a[1] != b[1] ? Integer.compare(a[1], b[1]) : Integer.compare(a[0], b[0]));
        StringBuilder sb = new StringBuilder();
        for (int[] cur : qs) {
            sb.append(pc[cur[1]] - pc[cur[0] - 1]).append('\n');
        }
        System.out.print(sb);
    }
}
