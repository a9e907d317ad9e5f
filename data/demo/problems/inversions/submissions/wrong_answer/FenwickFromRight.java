import java.io.*;
import java.util.*;

public class Main {
    static int[] tree;
    static int size;

    static void update(int idx) {
        while (idx <= size) {
            tree[idx]++;
            idx += idx & (-idx);
        }
    }

    static int query(int idx) {
        int s = 0;
        while (idx > 0) {
            s += tree[idx];
            idx -= idx & (-idx);
        }
        return s;
    }

    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = nextInt(in);
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = nextInt(in);

        int[] s = a.clone();
        Arrays.sort(s);
        int m = 0;
        for (int i = 0; i < n; i++) if (m == 0 || s[m - 1] != s[i]) s[m++] = s[i];
        size = m;
        tree = new int[m + 1];

        int result = 0;
        for (int i = n - 1; i >= 0; i--) {
            int r = lowerBound(s, m, a[i]) + 1;
            result += query(r - 1);
            update(r);
        }
        System.out.println(result);
    }

    static int lowerBound(int[] s, int m, int key) {
        int lo = 0, hi = m;
        while (lo < hi) {
            int mid = (lo + hi) >>> 1;
            if (s[mid] < key) lo = mid + 1; else hi = mid;
        }
        return lo;
    }

    private static int nextInt(DataInputStream in) throws IOException {
        int ret = 0, b;
        do { b = in.read(); } while (b < '0' || b > '9');
        while (b >= '0' && b <= '9') {
            ret = ret * 10 + (b - '0');
            b = in.read();
        }
        return ret;
    }
}
