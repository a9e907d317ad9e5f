import java.io.*;
import java.util.*;

public class Main {
    static final long MOD = 1_000_000_007L;
    static char[][] grid;
    static int rows, cols;

    static long count(int r, int c) {
        if (r >= rows || c >= cols) return 0;
        char ch = grid[r][c];
        if (ch == '#') return 0;
        long w = ch == '.' ? 1 : ch - '0';
        if (r == rows - 1 && c == cols - 1) return w;
        return (count(r + 1, c) + count(r, c + 1)) % MOD * w % MOD;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        rows = Integer.parseInt(st.nextToken());
        cols = Integer.parseInt(st.nextToken());
        grid = new char[rows][];
        for (int i = 0; i < rows; i++) grid[i] = br.readLine().trim().toCharArray();
        System.out.println(count(0, 0));
    }
}
