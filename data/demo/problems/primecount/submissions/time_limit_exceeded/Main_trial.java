import java.util.*;
import java.io.*;

public class Main {
    static boolean isPrime(long n) {
        if (n < 2) return false;
        if (n < 4) return true;
        if (n % 2 == 0 || n % 3 == 0) return false;
        for (long i = 5; i * i <= n; i += 6) {
            if (n % i == 0 || n % (i + 2) == 0) return false;
        }
        return true;
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int q = Integer.parseInt(br.readLine().trim());
        PrintWriter pw = new PrintWriter(new BufferedOutputStream(System.out));
        for (int i = 0; i < q; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            long l = Long.parseLong(st.nextToken());
            long r = Long.parseLong(st.nextToken());
            int cnt = 0;
            for (long x = l; x <= r; x++) {
                if (isPrime(x)) cnt++;
            }
            pw.println(cnt);
        }
        pw.flush();
    }
}
