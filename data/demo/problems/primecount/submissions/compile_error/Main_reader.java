import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;

public class Main {
    public static void main(String[] args) throws IOException {
        final int LIM = 5000000;
        boolean[] bad = new boolean[LIM + 1];
        bad[0] = bad[1] = true;
        for (int i = 2; (long) i * i <= LIM; i++)
            if (!bad[i])
                for (int j = i * i; j <= LIM; j += i) bad[j] = true;
        int[] pre = new int[LIM + 1];
        for (int i = 1; i <= LIM; i++) pre[i] = pre[i - 1] + (bad[i] ? 0 : 1);

        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int q = Integer.parseInt(br.readLine().trim());
        StringBuilder sb = new StringBuilder();
        while (q-- > 0) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            int l = Integer.parseInt(st.nextToken());
            int r = Integer.parseInt(st.nextToken());
            sb.append(pre[r] - pre[l - 1]).append('\n');
        }
        System.out.print(sb);
    }
}
