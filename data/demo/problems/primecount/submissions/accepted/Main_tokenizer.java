import java.io.*;
import java.util.*;

public class Main {
    static final int MAX = 5_000_000;

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        boolean[] composite = new boolean[MAX + 1];
        composite[0] = true;
        composite[1] = true;
        for (int i = 2; (long) i * i <= MAX; i++) {
            if (!composite[i]) {
                for (int j = i * i; j <= MAX; j += i) {
                    composite[j] = true;
                }
            }
        }
        int[] prefix = new int[MAX + 1];
        for (int i = 1; i <= MAX; i++) {
            prefix[i] = prefix[i - 1] + (composite[i] ? 0 : 1);
        }

        int q = Integer.parseInt(br.readLine().trim());
        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < q; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            int l = Integer.parseInt(st.nextToken());
            int r = Integer.parseInt(st.nextToken());
            sb.append(prefix[r] - prefix[l - 1]).append('\n');
        }
        System.out.print(sb);
    }
}
