import java.io.*;
import java.util.Arrays;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer st = new StreamTokenizer(new BufferedInputStream(System.in));
        st.nextToken();
        int n = (int) st.nval;
        int[] a = new int[n];
        for (int i = 0; i < n; i++) {
            st.nextToken();
            a[i] = (int) st.nval;
        }

        // coordinate compression over distinct values
        int[] sorted = a.clone();
        Arrays.sort(sorted);
        int m = 0;
        for (int i = 0; i < n; i++) {
            if (i == 0 || sorted[i] != sorted[i - 1]) {
                sorted[m++] = sorted[i];
            }
        }
        int[] distinct = Arrays.copyOf(sorted, m);

        int[] tree = new int[m + 1];
        long result = 0;
        for (int i = 0; i < n; i++) {
            int pos = Arrays.binarySearch(distinct, a[i]) + 1;
            int atMost = 0;
            for (int k = pos; k > 0; k -= k & -k) atMost += tree[k];
            result += i - atMost;
            for (int k = pos; k <= m; k += k & -k) tree[k]++;
        }
        System.out.println(result);
    }
}
