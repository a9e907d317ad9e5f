import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int k = Integer.parseInt(st.nextToken());
        int t = Integer.parseInt(st.nextToken());
        int[] s = new int[n];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) s[i] = Integer.parseInt(st.nextToken());

        boolean[] taken = new boolean[n];
        int[] order = new int[k];
        int picked = 0;
        while (picked < k) {
            int best = -1;
            for (int i = 0; i < n; i++) {
                if (!taken[i] && s[i] >= t && (best == -1 || s[i] > s[best])) best = i;
            }
            if (best == -1) break;
            taken[best] = true;
            order[picked++] = best;
        }

        int accepted = picked;
        if (picked == k) {
            int last = s[order[k - 1]];
            boolean more = false;
            for (int i = 0; i < n; i++) {
                if (!taken[i] && s[i] == last) more = true;
            }
            if (more) {
                while (accepted > 0 && s[order[accepted - 1]] == last) accepted--;
            }
        }
        long total = 0;
        for (int i = 0; i < accepted; i++) total += s[order[i]];
        System.out.println(accepted + " " + total);
    }
}
