import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = nextInt(in), q = nextInt(in);
        int[] prefix = new int[n + 1];
        for (int i = 1; i <= n; i++) {
            prefix[i] = prefix[i - 1] + nextInt(in);
        }
        PrintWriter pw = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        for (int i = 0; i < q; i++) {
            int l = nextInt(in), r = nextInt(in);
            long sum = prefix[r] - prefix[l - 1];
            pw.println(sum);
        }
        pw.flush();
    }

    static int nextInt(DataInputStream in) throws IOException {
        int b = in.read();
        while (b < '0' || b > '9') b = in.read();
        int x = 0;
        while (b >= '0' && b <= '9') {
            x = x * 10 + (b - '0');
            b = in.read();
        }
        return x;
    }
}
