import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int q = Integer.parseInt(br.readLine().trim());
        int[] ls = new int[q], rs = new int[q];
        int maxR = 1;
        for (int i = 0; i < q; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            ls[i] = Integer.parseInt(st.nextToken());
            rs[i] = Integer.parseInt(st.nextToken());
            if (rs[i] > maxR) maxR = rs[i];
        }

        // sieve only as far as needed
        boolean[] composite = new boolean[maxR + 1];
        int[] cnt = new int[maxR + 1];
        for (int i = 2; i <= maxR; i++) {
            cnt[i] = cnt[i - 1];
            if (composite[i]) continue;
            cnt[i]++;
            for (int j = i * i; j <= maxR; j += i) {
                composite[j] = true;
            }
        }

        StringBuilder sb = new StringBuilder();
        for (int i = 0; i < q; i++) {
            sb.append(cnt[rs[i]] - cnt[ls[i] - 1]).append("\n");
        }
        System.out.print(sb);
    }
}
