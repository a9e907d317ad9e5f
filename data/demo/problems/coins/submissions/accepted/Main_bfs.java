import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    private static final int BUFSZ = 1 << 16;
    private static DataInputStream din;
    private static byte[] buffer = new byte[BUFSZ];
    private static int bufferPointer = 0, bytesRead = 0;

    private static byte read() throws IOException {
        if (bufferPointer == bytesRead) {
            bytesRead = din.read(buffer, 0, BUFSZ);
            bufferPointer = 0;
            if (bytesRead <= 0) {
                bytesRead = 0;
                return -1;
            }
        }
        return buffer[bufferPointer++];
    }

    private static int readInt() throws IOException {
        int ret = 0;
        byte b = read();
        while (b < '0' || b > '9') b = read();
        while (b >= '0' && b <= '9') {
            ret = ret * 10 + (b - '0');
            b = read();
        }
        return ret;
    }

    public static void main(String[] args) throws IOException {
        din = new DataInputStream(System.in);
        int k = readInt();
        int q = readInt();
        int[] coin = new int[k];
        for (int i = 0; i < k; i++) coin[i] = readInt();
        int[] req = new int[q];
        int limit = 0;
        for (int i = 0; i < q; i++) {
            req[i] = readInt();
            limit = Math.max(limit, req[i]);
        }

        // breadth-first search over amounts; each coin is one step
        int[] steps = new int[limit + 1];
        java.util.Arrays.fill(steps, -1);
        int[] queue = new int[limit + 1];
        int head = 0, tail = 0;
        steps[0] = 0;
        queue[tail++] = 0;
        while (head < tail) {
            int v = queue[head++];
            for (int c : coin) {
                int w = v + c;
                if (w <= limit && steps[w] < 0) {
                    steps[w] = steps[v] + 1;
                    queue[tail++] = w;
                }
            }
        }

        long total = 0;
        for (int r : req) {
            if (steps[r] < 0) {
                System.out.println("-1");
                return;
            }
            total += steps[r];
        }
        System.out.println(total);
    }
}
