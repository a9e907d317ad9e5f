import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer tok = new StringTokenizer(reader.readLine());
        int n = Integer.parseInt(tok.nextToken());
        int k = Integer.parseInt(tok.nextToken());
        int minScore = Integer.parseInt(tok.nextToken());
        List<Integer> eligible = new ArrayList<>();
        tok = new StringTokenizer(reader.readLine());
        for (int i = 0; i < n; i++) {
            int s = Integer.parseInt(tok.nextToken());
            if (s >= minScore) eligible.add(s);
        }
        int[] e = new int[eligible.size()];
        for (int i = 0; i < e.length; i++) e[i] = eligible.get(i);
        Arrays.sort(e);
        int m = e.length;

        int accepted;
        if (m <= k) {
            accepted = m;
        } else if (e[m - k] == e[m - k - 1]) {
            // tie at the last place: that applicant cannot be admitted
            accepted = k - 1;
        } else {
            accepted = k;
        }
        long total = 0;
        for (int i = m - accepted; i < m; i++) total += e[i];
        System.out.println(accepted + " " + total);
    }
}
