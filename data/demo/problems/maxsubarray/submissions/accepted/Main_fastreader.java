import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    static class FastReader {
        private final DataInputStream in;
        private final byte[] buffer = new byte[1 << 16];
        private int ptr = 0, len = 0;

        FastReader() {
            in = new DataInputStream(System.in);
        }

        private byte read() throws IOException {
            if (ptr == len) {
                len = in.read(buffer, 0, buffer.length);
                ptr = 0;
                if (len <= 0) return -1;
            }
            return buffer[ptr++];
        }

        long nextLong() throws IOException {
            byte c = read();
            while (c <= ' ') c = read();
            boolean negative = (c == '-');
            if (negative) c = read();
            long ret = 0;
            while (c >= '0' && c <= '9') {
                ret = ret * 10 + (c - '0');
                c = read();
            }
            return negative ? -ret : ret;
        }
    }

    public static void main(String[] args) throws IOException {
        FastReader fr = new FastReader();
        int n = (int) fr.nextLong();
        long[] a = new long[n];
        for (int i = 0; i < n; i++) a[i] = fr.nextLong();

        long answer = a[0];
        long endingHere = 0;
        for (int i = 0; i < n; i++) {
            endingHere += a[i];
            if (endingHere > answer) answer = endingHere;
            if (endingHere < 0) endingHere = 0;
        }
        System.out.println(answer);
    }
}
