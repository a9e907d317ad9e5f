import java.io.DataInputStream;
import java.io.IOException;

public class Main {
    static class FastReader {
        private final DataInputStream in;
        private final byte[] buffer = new byte[1 << 16];
        private int ptr = 0, len = 0;

        FastReader() {
            in = new DataInputStream(System.in);
        }

        private int read() throws IOException {
            if (ptr == len) {
                len = in.read(buffer, 0, buffer.length);
                ptr = 0;
                if (len <= 0) return -1;
            }
            return buffer[ptr++];
        }

        int nextInt() throws IOException {
            int ret = 0;
            int b = read();
            while (b < '0' || b > '9') b = read();
            while (b >= '0' && b <= '9') {
                ret = ret * 10 + (b - '0');
                b = read();
            }
            return ret;
        }
    }

    static int[] arr, aux;

    static long mergeSort(int lo, int hi) {
        if (hi - lo < 1) return 0L;
        int mid = (lo + hi) >>> 1;
        long count = mergeSort(lo, mid) + mergeSort(mid + 1, hi);
        int i = lo, j = mid + 1, k = lo;
        while (i <= mid && j <= hi) {
            if (arr[j] < arr[i]) {
                count += (mid - i + 1);
                aux[k++] = arr[j++];
            } else {
                aux[k++] = arr[i++];
            }
        }
        while (i <= mid) aux[k++] = arr[i++];
        while (j <= hi) aux[k++] = arr[j++];
        System.arraycopy(aux, lo, arr, lo, hi - lo + 1);
        return count;
    }

    public static void main(String[] args) throws IOException {
        FastReader fr = new FastReader();
        int n = fr.nextInt();
        arr = new int[n];
        aux = new int[n];
        for (int i = 0; i < n; i++) arr[i] = fr.nextInt();
        System.out.println(mergeSort(0, n - 1));
    }
}
