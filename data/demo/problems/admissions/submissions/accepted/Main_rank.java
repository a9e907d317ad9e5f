import java.io.*;
import java.util.Arrays;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedInputStream(System.in));
        in.nextToken();
        int n = (int) in.nval;
        in.nextToken();
        int k = (int) in.nval;
        in.nextToken();
        long threshold = (long) in.nval;
        long[] score = new long[n];
        for (int i = 0; i < n; i++) {
            in.nextToken();
            score[i] = (long) in.nval;
        }

        // sorted copy of the eligible scores
        long[] sorted = new long[n];
        int m = 0;
        for (long s : score) if (s >= threshold) sorted[m++] = s;
        sorted = Arrays.copyOf(sorted, m);
        Arrays.sort(sorted);

        boolean[] accepted = new boolean[n];
        int count = 0;
        long sum = 0;
        for (int i = 0; i < n; i++) {
            if (score[i] < threshold) continue;
            int atLeast = m - lowerBound(sorted, score[i]);
            accepted[i] = atLeast <= k;
            if (accepted[i]) {
                count++;
                sum += score[i];
            }
        }
        System.out.println(count + " " + sum);
    }

    static int lowerBound(long[] a, long key) {
        int lo = 0, hi = a.length;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (a[mid] < key) lo = mid + 1;
            else hi = mid;
        }
        return lo;
    }
}
