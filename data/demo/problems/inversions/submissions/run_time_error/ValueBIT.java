import java.io.*;
import java.util.*;

public class Main {
    static final int MAXV = 1000001;
    static int[] bit = new int[MAXV + 1];

    static void add(int x) {
        for (; x <= MAXV; x += x & -x) bit[x]++;
    }

    static int countUpTo(int x) {
        int r = 0;
        for (; x > 0; x -= x & -x) r += bit[x];
        return r;
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        in.nextToken();
        int n = (int) in.nval;
        long total = 0;
        for (int i = 0; i < n; i++) {
            in.nextToken();
            int v = (int) in.nval;
            total += i - countUpTo(v);
            add(v);
        }
        System.out.println(total);
    }
}
