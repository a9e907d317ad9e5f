import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        long[] keys = new long[n];
        for (int i = 0; i < n; i++) {
            String[] parts = br.readLine().split(" ");
            long l = Long.parseLong(parts[0]);
            long r = Long.parseLong(parts[1]);
            keys[i] = r * 2000000000L + l;
        }
        Arrays.sort(keys);
        int cnt = 0;
        long last = -1;
        for (long k : keys) {
            long l = k % 2000000000L, r = k / 2000000000L;
            if (l > last) {
                cnt++;
                last = r;
            }
        }
        System.out.println(cnt);
    }
}
