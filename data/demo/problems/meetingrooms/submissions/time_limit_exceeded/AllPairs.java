import java.util.*;
import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        int[][] m = new int[n][2];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            m[i][0] = Integer.parseInt(st.nextToken());
            m[i][1] = Integer.parseInt(st.nextToken());
        }
        long clash = 0;
        int rooms = 0;
        for (int i = 0; i < n; i++) {
            int t = m[i][0];
            int running = 0;
            for (int j = 0; j < n; j++) {
                if (m[j][0] <= t && t < m[j][1]) running++;
                if (j < i && m[i][0] < m[j][1] && m[j][0] < m[i][1]) clash++;
            }
            rooms = Math.max(rooms, running);
        }
        System.out.println(rooms + " " + clash);
    }
}
