import java.io.BufferedReader;
import java.io.InputStreamReader;
import java.io.IOException;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        StringTokenizer st = new StringTokenizer(br.readLine());
        int[] a = new int[n];
        for (int i = 0; i < n; i++) a[i] = Integer.parseInt(st.nextToken());

        int[] vals = a.clone();
        Arrays.sort(vals);
        int m = 0;
        for (int i = 0; i < n; i++) if (m == 0 || vals[m - 1] != vals[i]) vals[m++] = vals[i];

        int[] tree = new int[m + 1];
        long ans = 0;
        for (int i = 0; i < n; i++) {
            int r = Arrays.binarySearch(vals, 0, m, a[i]) + 1;
            int s = 0;
            for (int k = r; k > 0; k -= k & -k) s += tree[k];
            ans += i - s;
            for (int k = r; k <= m; k += k & -k) tree[k]++;
        }
        System.out.println(ans);
    }
}
