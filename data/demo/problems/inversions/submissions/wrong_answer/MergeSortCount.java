import java.io.*;
import java.util.*;

public class Main {
    static long count = 0;

    static void sort(int[] arr, int[] tmp, int lo, int hi) {
        if (lo >= hi) return;
        int mid = (lo + hi) / 2;
        sort(arr, tmp, lo, mid);
        sort(arr, tmp, mid + 1, hi);
        int i = lo, j = mid + 1, k = lo;
        while (i <= mid && j <= hi) {
            if (arr[i] < arr[j]) {
                tmp[k++] = arr[i++];
            } else {
                count += mid - i + 1;
                tmp[k++] = arr[j++];
            }
        }
        while (i <= mid) tmp[k++] = arr[i++];
        while (j <= hi) tmp[k++] = arr[j++];
        for (k = lo; k <= hi; k++) arr[k] = tmp[k];
    }

    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        StringTokenizer st = new StringTokenizer(br.readLine());
        int[] arr = new int[n];
        for (int i = 0; i < n; i++) arr[i] = Integer.parseInt(st.nextToken());
        sort(arr, new int[n], 0, n - 1);
        System.out.println(count);
    }
}
