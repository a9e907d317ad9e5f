import java.io.DataInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.BufferedWriter;
import java.io.OutputStreamWriter;

public class Main {
    private static final int LIMIT = 5000000;

    static class FastReader {
        private final DataInputStream stream;
        private final byte[] buffer = new byte[1 << 16];
        private int length = 0, pointer = 0;

        FastReader() {
            stream = new DataInputStream(System.in);
        }

        private byte read() throws IOException {
            if (pointer == length) {
                length = stream.read(buffer, 0, buffer.length);
                pointer = 0;
                if (length <= 0) return -1;
            }
            return buffer[pointer++];
        }

        int nextInt() throws IOException {
            int result = 0;
            byte b = read();
            while (b < '0' || b > '9') b = read();
            while (b >= '0' && b <= '9') {
                result = result * 10 + (b - '0');
                b = read();
            }
            return result;
        }
    }

    public static void main(String[] args) throws IOException {
        FastReader reader = new FastReader();
        PrintWriter writer = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));

        byte[] sieve = new byte[LIMIT + 1];   // 1 = prime
        java.util.Arrays.fill(sieve, (byte) 1);
        sieve[0] = 0;
        sieve[1] = 0;
        for (int i = 2; i <= LIMIT / i; i++) {
            if (sieve[i] == 1) {
                for (int j = i * i; j <= LIMIT; j += i) sieve[j] = 0;
            }
        }
        int[] primesUpTo = new int[LIMIT + 1];
        int running = 0;
        for (int i = 0; i <= LIMIT; i++) {
            running += sieve[i];
            primesUpTo[i] = running;
        }

        int queries = reader.nextInt();
        while (queries-- > 0) {
            int left = reader.nextInt();
            int right = reader.nextInt();
            int answer = primesUpTo[right] - primesUpTo[left - 1];
            writer.println(answer);
        }
        writer.flush();
    }
}
