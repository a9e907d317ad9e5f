import java.io.*;
import java.util.Arrays;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer tok = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        tok.nextToken();
        int n = (int) tok.nval;
        // event = time * 2 + type, type 0 = end, 1 = start, so ends come first on ties
        long[] events = new long[2 * n];
        for (int i = 0; i < n; i++) {
            tok.nextToken();
            long s = (long) tok.nval;
            tok.nextToken();
            long e = (long) tok.nval;
            events[2 * i] = s * 2 + 1;
            events[2 * i + 1] = e * 2;
        }
        Arrays.sort(events);
        int now = 0, most = 0;
        long pairs = 0;
        for (long ev : events) {
            if ((ev & 1) == 1) {
                pairs += now;
                now++;
                most = Math.max(most, now);
            } else {
                now--;
            }
        }
        PrintWriter pw = new PrintWriter(new BufferedWriter(new OutputStreamWriter(System.out)));
        pw.printf("%d %d%n", most, pairs);
        pw.flush();
    }
}
