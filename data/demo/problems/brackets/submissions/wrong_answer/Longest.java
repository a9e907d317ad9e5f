import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(reader.readLine().trim());
        char[] s = reader.readLine().trim().toCharArray();
        int[] dp = new int[n];
        int maxLen = 0;
        int ways = 0;
        for (int i = 1; i < n; i++) {
            if (s[i] != ')') continue;
            if (s[i - 1] == '(') {
                dp[i] = (i >= 2 ? dp[i - 2] : 0) + 2;
            } else if (dp[i - 1] > 0) {
                int j = i - dp[i - 1] - 1;
                if (j >= 0 && s[j] == '(') {
                    dp[i] = dp[i - 1] + 2;
                }
            }
            if (dp[i] > maxLen) {
                maxLen = dp[i];
                ways = 1;
            } else if (dp[i] == maxLen && maxLen > 0) {
                ways++;
            }
        }
        if (maxLen == 0) ways = 1;
        System.out.println(maxLen + " " + ways);
    }
}
