import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedInputStream(System.in));
        st.nextToken();
        int n = (int) st.nval;
        long best = Long.MIN_VALUE;
        long running = 0;
        for (int i = 0; i < n; i++) {
            st.nextToken();
            long v = (long) st.nval;
            running = Math.max(running + v, v);
            best = Math.max(best, running);
        }
        System.out.println(best);
    }
}
