import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        StringTokenizer st = new StringTokenizer(br.readLine());
        int n = Integer.parseInt(st.nextToken());
        int m = Integer.parseInt(st.nextToken());
        List<long[]>[] adj = new ArrayList[n + 1];
        for (int i = 0; i <= n; i++) adj[i] = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            st = new StringTokenizer(br.readLine());
            int u = Integer.parseInt(st.nextToken());
            int v = Integer.parseInt(st.nextToken());
            long w = Long.parseLong(st.nextToken());
            adj[u].add(new long[]{v, w});
        }

        long INF = Long.MAX_VALUE;
        long[] dist = new long[n + 1];
        boolean[] fixed = new boolean[n + 1];
        Arrays.fill(dist, INF);
        dist[1] = 0;
        while (true) {
            // pick the closest town that is not fixed yet
            int best = -1;
            long bestDist = INF;
            for (int v = 1; v <= n; v++) {
                if (!fixed[v] && dist[v] < bestDist) {
                    bestDist = dist[v];
                    best = v;
                }
            }
            if (best == -1) break;
            fixed[best] = true;
            if (best == n) break;
            for (long[] e : adj[best]) {
                int v = (int) e[0];
                if (bestDist + e[1] < dist[v]) {
                    dist[v] = bestDist + e[1];
                }
            }
        }
        System.out.println(dist[n] == INF ? -1 : dist[n]);
    }
}
