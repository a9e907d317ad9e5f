import java.io.*;
import java.util.*;

public class Main {
    static final long MOD = 1_000_000_007L;

    static long weight(char c) {
        if (c >= '2' && c <= '9') return c - '0';
        return 1;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int R = Integer.parseInt(st.nextToken());
        int C = Integer.parseInt(st.nextToken());
        String[] g = new String[R];
        for (int i = 0; i < R; i++) g[i] = br.readLine().trim();

        long[] dp = new long[C];
        dp[0] = weight(g[0].charAt(0));
        for (int i = 0; i < R; i++) {
            for (int j = 0; j < C; j++) {
                if (i == 0 && j == 0) continue;
                char c = g[i].charAt(j);
                if (c == '#') {
                    dp[j] = 0;
                } else {
                    long s = dp[j] + (j > 0 ? dp[j - 1] : 0);
                    dp[j] = s % MOD * weight(c) % MOD;
                }
            }
        }
        System.out.println(dp[C - 1]);
    }
}
