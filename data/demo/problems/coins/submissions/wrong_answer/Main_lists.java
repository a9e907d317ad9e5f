import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int k = Integer.parseInt(st.nextToken());
        int q = Integer.parseInt(st.nextToken());
        List<Integer> coins = new ArrayList<>();
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < k; i++) coins.add(Integer.parseInt(st.nextToken()));
        int[] amounts = new int[q];
        int max = 0;
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < q; i++) {
            amounts[i] = Integer.parseInt(st.nextToken());
            max = Math.max(max, amounts[i]);
        }

        int[] dp = new int[max + 1];
        Arrays.fill(dp, -1);
        dp[0] = 0;
        for (int x = 1; x <= max; x++) {
            for (int c : coins) {
                if (c <= x && dp[x - c] != -1) {
                    if (dp[x] == -1 || dp[x - c] + 1 < dp[x]) dp[x] = dp[x - c] + 1;
                }
            }
        }

        long total = 0;
        for (int a : amounts) {
            if (dp[a] != -1) total += dp[a];
        }
        System.out.println(total);
    }
}
