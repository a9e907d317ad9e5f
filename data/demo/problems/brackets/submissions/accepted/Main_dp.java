import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        DataInputStream in = new DataInputStream(new BufferedInputStream(System.in, 1 << 16));
        int n = 0;
        int b = in.read();
        while (b < '0' || b > '9') b = in.read();
        while (b >= '0' && b <= '9') {
            n = n * 10 + (b - '0');
            b = in.read();
        }
        byte[] s = new byte[n];
        int k = 0;
        while (k < n) {
            b = in.read();
            if (b == '(' || b == ')') s[k++] = (byte) b;
        }

        int[] end = new int[n];
        int best = 0, many = 0;
        for (int i = 1; i < n; i++) {
            if (s[i] == '(') continue;
            int j = i - end[i - 1] - 1;
            if (j < 0 || s[j] != '(') continue;
            end[i] = end[i - 1] + 2 + (j > 0 ? end[j - 1] : 0);
            if (end[i] > best) {
                best = end[i];
                many = 1;
            } else if (end[i] == best) {
                many++;
            }
        }
        System.out.println(best == 0 ? "0 1" : best + " " + many);
    }
}
