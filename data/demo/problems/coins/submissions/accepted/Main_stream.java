import java.io.*;
import java.util.*;

public class Main {
    static StreamTokenizer in;

    static int nextInt() throws IOException {
        in.nextToken();
        return (int) in.nval;
    }

    public static void main(String[] args) throws IOException {
        in = new StreamTokenizer(new BufferedInputStream(System.in));
        int k = nextInt(), q = nextInt();
        int[] d = new int[k];
        for (int i = 0; i < k; i++) d[i] = nextInt();
        Arrays.sort(d);
        int[] a = new int[q];
        int hi = 0;
        for (int i = 0; i < q; i++) {
            a[i] = nextInt();
            if (a[i] > hi) hi = a[i];
        }

        long[] best = new long[hi + 1];
        Arrays.fill(best, Long.MAX_VALUE);
        best[0] = 0;
        for (int v = 1; v <= hi; v++) {
            for (int i = 0; i < k && d[i] <= v; i++) {
                long prev = best[v - d[i]];
                if (prev != Long.MAX_VALUE && prev + 1 < best[v]) {
                    best[v] = prev + 1;
                }
            }
        }

        long sum = 0;
        boolean possible = true;
        for (int i = 0; i < q; i++) {
            if (best[a[i]] == Long.MAX_VALUE) {
                possible = false;
                break;
            }
            sum += best[a[i]];
        }
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        out.println(possible ? sum : -1);
        out.flush();
    }
}
