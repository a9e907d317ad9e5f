import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int k = Integer.parseInt(st.nextToken());
        int t = Integer.parseInt(st.nextToken());
        PriorityQueue<Integer> pq = new PriorityQueue<>(Collections.reverseOrder());
        st = new StringTokenizer(br.readLine());
        for (int i = 0; i < n; i++) {
            int s = Integer.parseInt(st.nextToken());
            if (s >= t) pq.add(s);
        }
        boolean everyone = pq.size() <= k;
        int[] top = new int[k];
        for (int i = 0; i < k; i++) {
            if (everyone && pq.isEmpty() && i > 0) {
                k = i;
                break;
            }
            top[i] = pq.poll();
        }
        int accepted = k;
        if (!pq.isEmpty() && pq.peek() == top[k - 1]) {
            int last = top[k - 1];
            while (accepted > 0 && top[accepted - 1] == last) accepted--;
        }
        long total = 0;
        for (int i = 0; i < accepted; i++) total += top[i];
        System.out.println(accepted + " " + total);
    }
}
