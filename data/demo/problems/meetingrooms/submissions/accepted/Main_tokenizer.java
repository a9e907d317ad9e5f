import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in), 1 << 16);
        int n = Integer.parseInt(br.readLine().trim());
        int[] start = new int[n];
        int[] end = new int[n];
        for (int i = 0; i < n; i++) {
            StringTokenizer st = new StringTokenizer(br.readLine());
            start[i] = Integer.parseInt(st.nextToken());
            end[i] = Integer.parseInt(st.nextToken());
        }
        Arrays.sort(start);
        Arrays.sort(end);

        int rooms = 0;
        long separated = 0;
        int j = 0;
        for (int i = 0; i < n; i++) {
            while (j < n && end[j] <= start[i]) {
                j++;
            }
            separated += j;
            rooms = Math.max(rooms, i + 1 - j);
        }
        long total = (long) n * (n - 1) / 2;
        System.out.println(rooms + " " + (total - separated));
    }
}
