import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;

public class Main {
    private static final int BUFSZ = 1 << 16;
    private static final DataInputStream din = new DataInputStream(System.in);
    private static final byte[] buf = new byte[BUFSZ];
    private static int bufPtr = 0, bytesRead = 0;

    private static byte read() throws IOException {
        if (bufPtr == bytesRead) {
            bytesRead = din.read(buf, 0, BUFSZ);
            bufPtr = 0;
            if (bytesRead == -1) {
                bytesRead = 0;
                return -1;
            }
        }
        return buf[bufPtr++];
    }

    private static int nextInt() throws IOException {
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
        int n = nextInt();
        long[] byStart = new long[n];
        for (int i = 0; i < n; i++) {
            long l = nextInt();
            long r = nextInt();
            byStart[i] = l * 2000000001L + r;
        }
        Arrays.sort(byStart);

        // Walk the requests by start day. When a request overlaps the one we are
        // currently holding, keep whichever of the two finishes earlier.
        long holdingEnd = -1;
        int total = 0;
        for (int i = 0; i < n; i++) {
            long l = byStart[i] / 2000000001L;
            long r = byStart[i] % 2000000001L;
            if (l > holdingEnd) {
                total++;
                holdingEnd = r;
            } else {
                holdingEnd = Math.min(holdingEnd, r);
            }
        }
        System.out.println(total);
    }
}
