import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    private static final int MOD = 1000000007;
    private static final DataInputStream in = new DataInputStream(System.in);
    private static final byte[] buf = new byte[1 << 16];
    private static int len = 0, ptr = 0;

    private static int readByte() throws IOException {
        if (ptr == len) {
            len = in.read(buf, 0, buf.length);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buf[ptr++];
    }

    private static int readInt() throws IOException {
        int c = readByte();
        while (c < '0' || c > '9') c = readByte();
        int x = 0;
        while (c >= '0' && c <= '9') {
            x = x * 10 + (c - '0');
            c = readByte();
        }
        return x;
    }

    private static int readCell() throws IOException {
        int c = readByte();
        while (c == ' ' || c == '\n' || c == '\r') c = readByte();
        return c;
    }

    public static void main(String[] args) throws IOException {
        int n = readInt();
        int m = readInt();
        int[] ways = new int[n * m];
        for (int i = 0; i < n; i++) {
            for (int j = 0; j < m; j++) {
                int c = readCell();
                int idx = i * m + j;
                if (c == '#') {
                    ways[idx] = 0;
                    continue;
                }
                int w = c == '.' ? 1 : c - '0';
                long s;
                if (idx == 0) {
                    s = 1;
                } else {
                    s = 0;
                    if (i > 0) s += ways[idx - m];
                    if (j > 0) s += ways[idx - 1];
                }
                ways[idx] = (int) (s % MOD * w % MOD);
            }
        }
        System.out.println(ways[n * m - 1]);
    }
}
