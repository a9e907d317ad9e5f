import java.io.BufferedInputStream;
import java.io.IOException;
import java.io.PrintWriter;
import java.io.StreamTokenizer;
import java.util.BitSet;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));
        PrintWriter out = new PrintWriter(System.out);

        final int limit = 5000000;
        BitSet crossed = new BitSet(limit + 1);
        for (long p = 2; p * p <= limit; p++) {
            if (crossed.get((int) p)) continue;
            for (long k = p * p; k <= limit; k += p) crossed.set((int) k);
        }
        int[] primes = new int[350000];
        int total = 0;
        for (int x = crossed.nextClearBit(2); x <= limit; x = crossed.nextClearBit(x + 1)) {
            primes[total++] = x;
        }

        in.nextToken();
        int q = (int) in.nval;
        for (int t = 0; t < q; t++) {
            in.nextToken();
            int lo = (int) in.nval;
            in.nextToken();
            int hi = (int) in.nval;
            out.println(countAtMost(primes, total, hi) - countAtMost(primes, total, lo - 1));
        }
        out.flush();
    }

    // how many of the first `size` entries of the sorted array are <= bound
    private static int countAtMost(int[] arr, int size, int bound) {
        int left = 0, right = size;
        while (left < right) {
            int mid = (left + right) >>> 1;
            if (arr[mid] <= bound) {
                left = mid + 1;
            } else {
                right = mid;
            }
        }
        return left;
    }
}
