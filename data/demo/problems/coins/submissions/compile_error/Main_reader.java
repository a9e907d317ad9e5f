import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int k = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());
        int[] coins = new int[k];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < k; i++) coins[i] = Integer.parseInt(st.nextToken());
        long[] amounts = new long[q];
        long max = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < q; i++) {
            amounts[i] = Long.parseLong(st.nextToken());
            max = Math.max(max, amounts[i]);
        }
        int[] dp = new int[max + 1];
        Arrays.fill(dp, Integer.MAX_VALUE);
        dp[0] = 0;
        for (int c : coins)
            for (int x = c; x <= max; x++)
                if (dp[x - c] != Integer.MAX_VALUE)
                    dp[x] = Math.min(dp[x], dp[x - c] + 1);
        long total = 0;
        for (long a : amounts) {
            int r = dp[(int) a];
            if (r == Integer.MAX_VALUE) {
                System.out.println(-1);
                return;
            }
            total += r;
        }
        System.out.println(total);
    }
}
