import java.io.*;
import java.util.*;

public class Main {
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = nextInt(in), m = nextInt(in);
        int[] head = new int[n + 1];
        Arrays.fill(head, -1);
        int[] nxt = new int[m], to = new int[m];
        long[] w = new long[m];
        for (int i = 0; i < m; i++) {
            int u = nextInt(in);
            to[i] = nextInt(in);
            w[i] = nextInt(in);
            nxt[i] = head[u];
            head[u] = i;
        }
        long[] dist = new long[n + 1];
        Arrays.fill(dist, Long.MAX_VALUE);
        dist[1] = 0;
        PriorityQueue<long[]> pq = new PriorityQueue<>(Comparator.comparingLong(a -> a[0]));
        pq.offer(new long[]{0, 1});
        while (!pq.isEmpty()) {
            long[] t = pq.poll();
            int u = (int) t[1];
            if (t[0] != dist[u]) continue;
            for (int e = head[u]; e >= 0; e = nxt[e]) {
                long nd = t[0] + w[e];
                if (nd < dist[to[e]]) {
                    dist[to[e]] = nd;
                    pq.offer(new long[]{nd, to[e]});
                }
            }
        }
        if (dist[n] >= Integer.MAX_VALUE) {
            System.out.println(-1);
        } else {
            System.out.println(dist[n]);
        }
    }

    private static int nextInt(DataInputStream in) throws IOException {
        int ret = 0;
        int b = in.read();
        while (b < '0' || b > '9') b = in.read();
        while (b >= '0' && b <= '9') {
            ret = ret * 10 + (b - '0');
            b = in.read();
        }
        return ret;
    }
}
