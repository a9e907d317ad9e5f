import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintStream;
import java.io.BufferedOutputStream;

public class Main {
    private static final DataInputStream IN = new DataInputStream(System.in);
    private static final byte[] BUF = new byte[1 << 16];
    private static int bufLen = 0, bufPtr = 0;

    private static int readByte() throws IOException {
        if (bufPtr == bufLen) {
            bufLen = IN.read(BUF, 0, BUF.length);
            bufPtr = 0;
            if (bufLen <= 0) return -1;
        }
        return BUF[bufPtr++];
    }

    private static int readInt() throws IOException {
        int c = readByte();
        while (c != -1 && (c < '0' || c > '9')) c = readByte();
        int x = 0;
        while (c >= '0' && c <= '9') {
            x = x * 10 + (c - '0');
            c = readByte();
        }
        return x;
    }

    /** Binary indexed tree over 1-based positions. */
    static long[] tree;
    static int size;

    static void add(int i, long delta) {
        while (i <= size) {
            tree[i] += delta;
            i += i & -i;
        }
    }

    static long prefix(int i) {
        long s = 0;
        while (i > 0) {
            s += tree[i];
            i -= i & -i;
        }
        return s;
    }

    public static void main(String[] args) throws IOException {
        size = readInt();
        int queries = readInt();
        tree = new long[size + 1];
        for (int i = 1; i <= size; i++) add(i, readInt());

        StringBuilder sb = new StringBuilder();
        for (int k = 0; k < queries; k++) {
            int l = readInt();
            int r = readInt();
            sb.append(prefix(r) - prefix(l - 1)).append('\n');
        }
        PrintStream ps = new PrintStream(new BufferedOutputStream(System.out), false);
        ps.print(sb);
        ps.flush();
    }
}
