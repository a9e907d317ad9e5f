import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader reader = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(reader.readLine().trim());
        StringTokenizer st = new StringTokenizer(reader.readLine());
        long[] values = new long[n];
        for (int i = 0; i < n; i++) {
            values[i] = Long.parseLong(st.nextToken());
        }
        long answer = 0;
        for (int j = 1; j < n; j++) {
            long cur = values[j];
            for (int i = 0; i < j; i++) {
                if (values[i] > cur) {
                    answer++;
                }
            }
        }
        System.out.println(answer);
    }
}
