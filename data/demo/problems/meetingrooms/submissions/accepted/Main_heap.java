import java.io.DataInputStream;
import java.io.IOException;
import java.util.Arrays;
import java.util.PriorityQueue;

public class Main {
    private static final int BUF = 1 << 16;
    private static DataInputStream in;
    private static byte[] buffer = new byte[BUF];
    private static int len = 0, ptr = 0;

    private static int readByte() throws IOException {
        if (ptr == len) {
            len = in.read(buffer, 0, BUF);
            ptr = 0;
            if (len <= 0) return -1;
        }
        return buffer[ptr++];
    }

    private static int nextInt() throws IOException {
        int c = readByte();
        while (c < '0' || c > '9') c = readByte();
        int r = 0;
        while (c >= '0' && c <= '9') {
            r = r * 10 + c - '0';
            c = readByte();
        }
        return r;
    }

    public static void main(String[] args) throws IOException {
        in = new DataInputStream(System.in);
        int n = nextInt();
        long[] byStart = new long[n];
        for (int i = 0; i < n; i++) {
            long s = nextInt();
            long e = nextInt();
            byStart[i] = (s << 31) | e;   // sort by start, then end
        }
        Arrays.sort(byStart);

        PriorityQueue<Integer> heap = new PriorityQueue<>();
        long clashing = 0;
        int maxRooms = 0;
        for (int i = 0; i < n; i++) {
            int s = (int) (byStart[i] >>> 31);
            int e = (int) (byStart[i] & ((1L << 31) - 1));
            while (!heap.isEmpty() && heap.peek() <= s) {
                heap.poll();
            }
            clashing += heap.size();
            heap.add(e);
            if (heap.size() > maxRooms) {
                maxRooms = heap.size();
            }
        }
        System.out.println(maxRooms + " " + clashing);
    }
}
