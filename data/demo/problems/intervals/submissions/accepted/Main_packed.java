import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.util.Arrays;
import java.util.StringTokenizer;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in), 1 << 16);
        int n = Integer.parseInt(br.readLine().trim());
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            long l = Long.parseLong(st.nextToken());
            long r = Long.parseLong(st.nextToken());
            keys[i] = (r << 32) | l;   // primary key: end day
        }
        Arrays.sort(keys);
        long lastEnd = -1;
        int count = 0;
        for (long k : keys) {
            long r = k >>> 32;
            long l = k & 0xFFFFFFFFL;
            if (l > lastEnd) {
                count++;
                lastEnd = r;
            }
        }
        System.out.println(count);
    }
}
