import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        String[] first = br.readLine().trim().split("\\s+");
        int n = Integer.parseInt(first[0]);
        int m = Integer.parseInt(first[1]);
        ArrayList<long[]>[] g = new ArrayList[n + 1];
        for (int i = 0; i <= n; i++) g[i] = new ArrayList<>();
        for (int i = 0; i < m; i++) {
            String[] p = br.readLine().trim().split("\\s+");
            g[Integer.parseInt(p[0])].add(new long[]{Long.parseLong(p[1]), Long.parseLong(p[2])});
        }
        long[] dist = new long[n + 1];
        Arrays.fill(dist, Long.MAX_VALUE);
        dist[1] = 0;
        PriorityQueue<long[]> pq = new PriorityQueue<>((a, b) -> Long.compare(a[0], b[0]));
        pq.add(new long[]{0, 1});
        while (!pq.isEmpty()) {
            long[] c = pq.poll();
            int u = (int) c[1];
            if (c[0] > dist[u]) continue;
            for (long[] e : g[u]) {
                int v = (int) e[0];
                if (c[0] + e[1] < dist[v]) {
                    dist[v] = c[0] + e[1];
                    pq.add(new long[]{dist[v], v});
                }
            }
        }
        System.out.println(dist[n] == Long.MAX_VALUE ? -1 : dist[n]);
    }
}
