import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        long x = Long.parseLong(st.nextToken());
        int[] a = new int[n];
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) {
            while (!st.hasMoreTokens()) st = new StringTokenizer(br.readLine());
            a[i] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(a);

        long count = 0;
        int left = 0, right = n - 1;
        while (left < right) {
            if ((long) a[left] + a[right] <= x) {
                count += right - left;
                left++;
            } else {
                right--;
            }
        }
        System.out.println(count);
    }
}
