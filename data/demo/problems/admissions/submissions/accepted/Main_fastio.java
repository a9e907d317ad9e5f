import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;

public class Main {
    private static final int BUF = 1 << 16;
    private static DataInputStream din;
    private static byte[] buffer = new byte[BUF];
    private static int ptr = 0, len = 0;

    private static int read() throws IOException {
        if (ptr == len) {
            len = din.read(buffer, 0, BUF);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buffer[ptr++];
    }

    private static long nextLong() throws IOException {
        int c = read();
        while (c != '-' && (c < '0' || c > '9')) c = read();
        boolean neg = false;
        if (c == '-') {
            neg = true;
            c = read();
        }
        long r = 0;
        while (c >= '0' && c <= '9') {
            r = r * 10 + (c - '0');
            c = read();
        }
        return neg ? -r : r;
    }

    public static void main(String[] args) throws IOException {
        din = new DataInputStream(System.in);
        int n = (int) nextLong();
        int k = (int) nextLong();
        long T = nextLong();
        long[] pool = new long[n];
        int size = 0;
        for (int i = 0; i < n; i++) {
            long x = nextLong();
            if (x >= T) pool[size++] = x;
        }
        Arrays.sort(pool, 0, size);
        // pool[0..size) ascending; the best applicants sit at the end

        int accepted;
        if (size <= k) {
            accepted = size;
        } else {
            long cut = pool[size - k];
            if (pool[size - k - 1] == cut) {
                int idx = size - k;
                while (idx < size && pool[idx] == cut) idx++;
                accepted = size - idx;
            } else {
                accepted = k;
            }
        }
        long total = 0;
        for (int i = size - accepted; i < size; i++) total += pool[i];
        System.out.println(accepted + " " + total);
    }
}
