import java.io.*;
import java.util.*;

public class Main {
    static int[] coins;

    static int minCoins(int amount) {
        int[] dp = new int[amount + 1];
        Arrays.fill(dp, Integer.MAX_VALUE);
        dp[0] = 0;
        for (int x = 1; x <= amount; x++) {
            for (int c : coins) {
                if (c <= x && dp[x - c] != Integer.MAX_VALUE) {
                    dp[x] = Math.min(dp[x], dp[x - c] + 1);
                }
            }
        }
        return dp[amount] == Integer.MAX_VALUE ? -1 : dp[amount];
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int k = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());
        coins = new int[k];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < k; i++) coins[i] = Integer.parseInt(st.nextToken());
        st = new StringTokenizer(br.readLine());
        long total = 0;
        for (int i = 0; i < q; i++) {
            int a = Integer.parseInt(st.nextToken());
            int r = minCoins(a);
            if (r == -1) {
                System.out.println(-1);
                return;
            }
            total += r;
        }
        System.out.println(total);
    }
}
