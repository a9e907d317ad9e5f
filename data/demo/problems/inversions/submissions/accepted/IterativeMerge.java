import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.util.StringTokenizer;

public class Main {
    public static void main(String[] args) throws Exception {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in), 1 << 16);
        int n = Integer.parseInt(br.readLine().trim());
        long[] cur = new long[n];
        StringTokenizer tok = new StringTokenizer("");
        for (int i = 0; i < n; i++) {
            while (!tok.hasMoreTokens()) {
                tok = new StringTokenizer(br.readLine());
            }
            cur[i] = Long.parseLong(tok.nextToken());
        }

        long[] next = new long[n];
        long inversions = 0L;
        for (int size = 1; size < n; size <<= 1) {
            for (int start = 0; start < n; start += size << 1) {
                int mid = Math.min(start + size, n);
                int end = Math.min(start + (size << 1), n);
                int left = start, right = mid, w = start;
                while (left < mid || right < end) {
                    if (right >= end || (left < mid && cur[left] <= cur[right])) {
                        next[w++] = cur[left++];
                    } else {
                        inversions += mid - left;
                        next[w++] = cur[right++];
                    }
                }
            }
            long[] swap = cur;
            cur = next;
            next = swap;
        }
        System.out.println(inversions);
    }
}
