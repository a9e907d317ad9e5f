import java.io.*;
import java.util.*;

public class Main {
    static class Road {
        final int dest;
        final long length;

        Road(int dest, long length) {
            this.dest = dest;
            this.length = length;
        }
    }

    static class State implements Comparable<State> {
        final long dist;
        final int town;

        State(long dist, int town) {
            this.dist = dist;
            this.town = town;
        }

        @Override
        public int compareTo(State other) {
            return Long.compare(this.dist, other.dist);
        }
    }

    public static void main(String[] args) throws IOException {
        StreamTokenizer tok = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        tok.nextToken();
        int n = (int) tok.nval;
        tok.nextToken();
        int m = (int) tok.nval;

        List<List<Road>> roads = new ArrayList<>(n + 1);
        for (int i = 0; i <= n; i++) {
            roads.add(new ArrayList<>());
        }
        for (int i = 0; i < m; i++) {
            tok.nextToken();
            int u = (int) tok.nval;
            tok.nextToken();
            int v = (int) tok.nval;
            tok.nextToken();
            long w = (long) tok.nval;
            roads.get(u).add(new Road(v, w));
        }

        final long INF = Long.MAX_VALUE / 2;
        long[] best = new long[n + 1];
        Arrays.fill(best, INF);
        best[1] = 0;
        boolean[] visited = new boolean[n + 1];
        PriorityQueue<State> queue = new PriorityQueue<>();
        queue.add(new State(0, 1));

        while (!queue.isEmpty()) {
            State s = queue.poll();
            if (visited[s.town]) {
                continue;
            }
            visited[s.town] = true;
            for (Road r : roads.get(s.town)) {
                long candidate = s.dist + r.length;
                if (candidate < best[r.dest]) {
                    best[r.dest] = candidate;
                    queue.add(new State(candidate, r.dest));
                }
            }
        }

        if (best[n] >= INF) {
            System.out.println(-1);
        } else {
            System.out.println(best[n]);
        }
    }
}
