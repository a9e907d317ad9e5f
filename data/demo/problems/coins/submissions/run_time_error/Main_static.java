import java.io.*;
import java.util.*;

public class Main {
    static final int MAX = 100000;
    static final int INF = 1 << 29;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int k = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());
        int[] coins = new int[k];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < k; i++) coins[i] = Integer.parseInt(st.nextToken());

        int[] dp = new int[MAX];
        Arrays.fill(dp, INF);
        dp[0] = 0;
        for (int c : coins) {
            for (int x = c; x < MAX; x++) {
                dp[x] = Math.min(dp[x], dp[x - c] + 1);
            }
        }

        st = new StringTokenizer(br.readLine());
        long total = 0;
        boolean bad = false;
        for (int i = 0; i < q; i++) {
            int a = Integer.parseInt(st.nextToken());
            if (dp[a] >= INF) bad = true;
            else total += dp[a];
        }
        System.out.println(bad ? -1 : total);
    }
}
