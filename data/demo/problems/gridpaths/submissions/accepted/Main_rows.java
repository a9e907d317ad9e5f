import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

public class Main {
    static final long MOD = 1_000_000_007L;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in), 1 << 16);
        StringTokenizer st = new StringTokenizer(br.readLine());
        int rows = Integer.parseInt(st.nextToken());
        int cols = Integer.parseInt(st.nextToken());

        long[] dp = new long[cols];
        for (int i = 0; i < rows; i++) {
            String line = br.readLine().trim();
            for (int j = 0; j < cols; j++) {
                char ch = line.charAt(j);
                if (ch == '#') {
                    dp[j] = 0;
                    continue;
                }
                long ways;
                if (i == 0 && j == 0) {
                    ways = 1;
                } else {
                    ways = dp[j];
                    if (j > 0) ways += dp[j - 1];
                }
                long w = (ch == '.') ? 1 : ch - '0';
                dp[j] = ways % MOD * w % MOD;
            }
        }
        System.out.println(dp[cols - 1]);
    }
}
