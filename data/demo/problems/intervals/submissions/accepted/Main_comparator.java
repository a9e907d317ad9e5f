import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        in.nextToken();
        int n = (int) in.nval;
        int[][] req = new int[n][2];
        for (int i = 0; i < n; i++) {
            in.nextToken();
            req[i][0] = (int) in.nval;
            in.nextToken();
            req[i][1] = (int) in.nval;
        }
        Arrays.sort(req, Comparator.comparingInt(x -> x[1]));

        int accepted = 0;
        int busyUntil = -1;
        for (int[] q : req) {
            if (q[0] > busyUntil) {
                accepted++;
                busyUntil = q[1];
            }
        }
        System.out.println(accepted);
    }
}
