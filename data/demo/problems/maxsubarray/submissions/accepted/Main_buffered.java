import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        StringTokenizer tok = new StringTokenizer(br.readLine());
        long[] prefix = new long[n + 1];
        for (int i = 1; i <= n; i++) {
            prefix[i] = prefix[i - 1] + Long.parseLong(tok.nextToken());
        }
        // best = max over j of prefix[j] - min(prefix[0..j-1])
        long minSoFar = prefix[0];
        long best = prefix[1] - prefix[0];
        for (int j = 1; j <= n; j++) {
            best = Math.max(best, prefix[j] - minSoFar);
            minSoFar = Math.min(minSoFar, prefix[j]);
        }
        System.out.println(best);
    }
}
