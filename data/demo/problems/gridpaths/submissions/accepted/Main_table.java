import java.io.*;
import java.util.*;

public class Main {
    private static final long MOD = 1000000007L;

    private static int weight(char c) {
        switch (c) {
            case '#':
                return 0;
            case '.':
                return 1;
            default:
                return c - '0';
        }
    }

    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        String[] first = reader.readLine().trim().split("\\s+");
        int R = Integer.parseInt(first[0]);
        int C = Integer.parseInt(first[1]);
        char[][] map = new char[R][];
        for (int r = 0; r < R; r++) {
            map[r] = reader.readLine().trim().toCharArray();
        }

        long[][] routes = new long[R][C];
        for (int r = 0; r < R; r++) {
            for (int c = 0; c < C; c++) {
                int w = weight(map[r][c]);
                if (w == 0) continue;
                long incoming;
                if (r == 0 && c == 0) {
                    incoming = 1;
                } else {
                    long fromTop = r > 0 ? routes[r - 1][c] : 0;
                    long fromLeft = c > 0 ? routes[r][c - 1] : 0;
                    incoming = (fromTop + fromLeft) % MOD;
                }
                routes[r][c] = incoming * w % MOD;
            }
        }
        System.out.println(routes[R - 1][C - 1]);
    }
}
