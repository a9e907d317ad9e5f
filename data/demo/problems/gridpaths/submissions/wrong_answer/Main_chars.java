import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        final long MOD = 1000000007L;
        BufferedReader in = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer tk = new StringTokenizer(in.readLine());
        int r = Integer.parseInt(tk.nextToken());
        int c = Integer.parseInt(tk.nextToken());
        char[][] g = new char[r][];
        for (int i = 0; i < r; i++) g[i] = in.readLine().trim().toCharArray();

        if (r == 1 || c == 1) {
            // a single row or column: there is only one way through
            boolean open = true;
            for (int i = 0; i < r; i++)
                for (int j = 0; j < c; j++)
                    if (g[i][j] == '#') open = false;
            System.out.println(open ? 1 : 0);
            return;
        }

        long[][] f = new long[r][c];
        for (int i = 0; i < r; i++) {
            for (int j = 0; j < c; j++) {
                if (g[i][j] == '#') continue;
                long w = g[i][j] == '.' ? 1 : g[i][j] - '0';
                long s = (i == 0 && j == 0) ? 1 : 0;
                if (i > 0) s += f[i - 1][j];
                if (j > 0) s += f[i][j - 1];
                f[i][j] = s % MOD * w % MOD;
            }
        }
        System.out.println(f[r - 1][c - 1]);
    }
}
