import java.io.IOException;
import java.io.PrintWriter;
import java.util.ArrayDeque;

public class Main {

    static int[] answer(byte[] raw, int start, int n) {
        boolean[] matched = new boolean[n];
        ArrayDeque<Integer> opens = new ArrayDeque<>();
        for (int i = 0; i < n; i++) {
            if (raw[start + i] == '(') {
                opens.push(i);
            } else if (!opens.isEmpty()) {
                int j = opens.pop();
                matched[i] = true;
                matched[j] = true;
            }
        }
        int best = 0, cnt = 1;
        int i = 0;
        while (i < n) {
            if (!matched[i]) {
                i++;
                continue;
            }
            int j = i;
            while (j < n && matched[j]) j++;
            int len = j - i;
            if (len > best) {
                best = len;
                cnt = 1;
            } else if (len == best) {
                cnt++;
            }
            i = j;
        }
        return new int[]{best, cnt};
    }

    public static void main(String[] args) throws IOException {
        byte[] raw = System.in.readAllBytes();
        int p = 0;
        while (raw[p] < '0' || raw[p] > '9') p++;
        int n = 0;
        while (p < raw.length && raw[p] >= '0' && raw[p] <= '9') {
            n = n * 10 + (raw[p] - '0');
            p++;
        }
        while (raw[p] != '(' && raw[p] != ')') p++;
        int[] res = answer(raw, p, n);
        PrintWriter out = new PrintWriter(System.out);
        out.println(res[0] + " " + res[1]);
        out.flush();
    }
}
