import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        PrintWriter out = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));

        in.nextToken();
        int n = (int) in.nval;
        in.nextToken();
        int q = (int) in.nval;

        long[] sums = new long[n + 1];
        for (int i = 0; i < n; i++) {
            in.nextToken();
            sums[i + 1] = sums[i] + (long) in.nval;
        }

        while (q-- > 0) {
            in.nextToken();
            int left = (int) in.nval;
            in.nextToken();
            int right = (int) in.nval;
            out.println(sums[right] - sums[left - 1]);
        }
        out.flush();
    }
}
