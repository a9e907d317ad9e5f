import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    private static final int BUFSZ = 1 << 16;
    private static final DataInputStream in = new DataInputStream(System.in);
    private static final byte[] buf = new byte[BUFSZ];
    private static int bufLen = 0, bufPtr = 0;

    private static int readByte() throws IOException {
        if (bufPtr == bufLen) {
            bufLen = in.read(buf, 0, BUFSZ);
            bufPtr = 0;
            if (bufLen <= 0) return -1;
        }
        return buf[bufPtr++];
    }

    private static long readLong() throws IOException {
        int c = readByte();
        while (c < '0' || c > '9') c = readByte();
        long x = 0;
        while (c >= '0' && c <= '9') {
            x = x * 10 + (c - '0');
            c = readByte();
        }
        return x;
    }

    // binary heap on parallel primitive arrays
    static long[] hKey;
    static int[] hVal;
    static int hSize = 0;

    static void offer(long key, int val) {
        int i = hSize++;
        while (i > 0) {
            int p = (i - 1) >> 1;
            if (hKey[p] <= key) break;
            hKey[i] = hKey[p];
            hVal[i] = hVal[p];
            i = p;
        }
        hKey[i] = key;
        hVal[i] = val;
    }

    static void removeTop() {
        hSize--;
        long key = hKey[hSize];
        int val = hVal[hSize];
        int i = 0;
        while (true) {
            int c = 2 * i + 1;
            if (c >= hSize) break;
            if (c + 1 < hSize && hKey[c + 1] < hKey[c]) c++;
            if (key <= hKey[c]) break;
            hKey[i] = hKey[c];
            hVal[i] = hVal[c];
            i = c;
        }
        hKey[i] = key;
        hVal[i] = val;
    }

    public static void main(String[] args) throws IOException {
        int n = (int) readLong();
        int m = (int) readLong();
        int[] src = new int[m], dst = new int[m];
        long[] len = new long[m];
        int[] outDeg = new int[n + 2];
        for (int i = 0; i < m; i++) {
            src[i] = (int) readLong();
            dst[i] = (int) readLong();
            len[i] = readLong();
            outDeg[src[i]]++;
        }
        int[] begin = new int[n + 2];
        for (int v = 1; v <= n; v++) begin[v + 1] = begin[v] + outDeg[v];
        int[] pos = begin.clone();
        int[] adjV = new int[m];
        long[] adjW = new long[m];
        for (int i = 0; i < m; i++) {
            int p = pos[src[i]]++;
            adjV[p] = dst[i];
            adjW[p] = len[i];
        }

        long[] dist = new long[n + 1];
        boolean[] settled = new boolean[n + 1];
        java.util.Arrays.fill(dist, -1L);
        hKey = new long[m + 2];
        hVal = new int[m + 2];
        dist[1] = 0;
        offer(0, 1);
        while (hSize > 0) {
            long d = hKey[0];
            int u = hVal[0];
            removeTop();
            if (settled[u]) continue;
            settled[u] = true;
            if (u == n) break;
            for (int p = begin[u]; p < begin[u + 1]; p++) {
                int v = adjV[p];
                long cand = d + adjW[p];
                if (dist[v] == -1 || cand < dist[v]) {
                    dist[v] = cand;
                    offer(cand, v);
                }
            }
        }
        System.out.println(dist[n]);
    }
}
