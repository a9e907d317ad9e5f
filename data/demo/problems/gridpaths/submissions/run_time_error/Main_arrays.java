import java.io.*;
import java.util.*;

public class Main {
    static final int MAXN = 1001;
    static final long MOD = 1000000007L;
    static long[][] dp = new long[MAXN][MAXN];
    static char[][] g = new char[MAXN][MAXN];

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int m = Integer.parseInt(st.nextToken());
        for (int i = 0; i < n; i++) {
            String s = br.readLine();
            for (int j = 0; j < m; j++) g[i][j] = s.charAt(j);
        }
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                if (g[i][j] == '#') {
                    dp[i][j] = 0;
                    continue;
                }
                long w = g[i][j] == '.' ? 1 : g[i][j] - '0';
                long s = 0;
                if (i == 0 && j == 0) s = 1;
                if (i > 0) s += dp[i - 1][j];
                if (j > 0) s += dp[i][j - 1];
                dp[i][j] = s % MOD * w % MOD;
            }
        }
        System.out.println(dp[n - 1][m - 1]);
    }
}
