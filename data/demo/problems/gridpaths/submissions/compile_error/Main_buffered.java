import java.io.*;
import java.util.*;

public class Main {
    static final long MOD = 1_000_000_007L;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int R = Integer.parseInt(st.nextToken());
        int C = Integer.parseInt(st.nextToken());
        int[] dp = new int[C];
        for (int i = 0; i < R; i++) {
            String row = br.readLine();
            for (int j = 0; j < C; j++) {
                char ch = row.charAt(j);
                if (ch == '#') {
                    dp[j] = 0;
                    continue;
                }
                long w = ch == '.' ? 1 : ch - '0';
                long s = (i == 0 && j == 0) ? 1 : dp[j] + (j > 0 ? dp[j - 1] : 0);
                dp[j] = s % MOD * w % MOD;
            }
        }
        System.out.println(dp[C - 1]);
    }
}
