import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    static long limit;
    static long[] arr, buf;

    // sorts arr[lo, hi) and returns the number of pairs inside it with sum <= limit
    static long solve(int lo, int hi) {
        if (hi - lo <= 1) return 0;
        int mid = (lo + hi) >>> 1;
        long res = solve(lo, mid) + solve(mid, hi);
        // both halves sorted now: pairs with one element on each side
        int j = hi - 1;
        for (int i = lo; i < mid; i++) {
            while (j >= mid && arr[i] + arr[j] > limit) j--;
            res += j - mid + 1;
        }
        int p = lo, q = mid, k = lo;
        while (p < mid && q < hi) buf[k++] = arr[p] <= arr[q] ? arr[p++] : arr[q++];
        while (p < mid) buf[k++] = arr[p++];
        while (q < hi) buf[k++] = arr[q++];
        System.arraycopy(buf, lo, arr, lo, hi - lo);
        return res;
    }

    public static void main(String[] args) throws IOException {
        Reader r = new Reader();
        int n = (int) r.next();
        limit = r.next();
        arr = new long[n];
        buf = new long[n];
        for (int i = 0; i < n; i++) arr[i] = r.next();
        System.out.println(solve(0, n));
    }

    static class Reader {
        private final DataInputStream in = new DataInputStream(System.in);
        private final byte[] b = new byte[1 << 16];
        private int len = 0, pos = 0;

        private int byteAt() throws IOException {
            if (pos == len) {
                len = in.read(b, 0, b.length);
                pos = 0;
                if (len <= 0) return -1;
            }
            return b[pos++];
        }

        long next() throws IOException {
            int c = byteAt();
            while (c != '-' && (c < '0' || c > '9')) c = byteAt();
            boolean minus = c == '-';
            if (minus) c = byteAt();
            long v = 0;
            while (c >= '0' && c <= '9') {
                v = v * 10 + c - '0';
                c = byteAt();
            }
            return minus ? -v : v;
        }
    }
}
