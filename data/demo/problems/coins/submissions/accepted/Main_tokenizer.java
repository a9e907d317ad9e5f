import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int k = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());

        int[] coins = new int[k];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < k; i++) coins[i] = Integer.parseInt(st.nextToken());

        int[] amounts = new int[q];
        int maxAmount = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < q; i++) {
            amounts[i] = Integer.parseInt(st.nextToken());
            maxAmount = Math.max(maxAmount, amounts[i]);
        }

        final int INF = 1_000_000_000;
        int[] dp = new int[maxAmount + 1];
        for (int i = 1; i <= maxAmount; i++) dp[i] = INF;
        for (int c : coins) {
            for (int x = c; x <= maxAmount; x++) {
                int cand = dp[x - c] + 1;
                if (cand < dp[x]) dp[x] = cand;
            }
        }

        long total = 0;
        for (int amount : amounts) {
            if (dp[amount] >= INF) {
                System.out.println(-1);
                return;
            }
            total += dp[amount];
        }
        System.out.println(total);
    }
}
