import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;

public class Main {
    public static void main(String[] args) throws IOException {
        BufferedReader br = new BufferedReader(new InputStreamReader(System.in));
        int n = Integer.parseInt(br.readLine().trim());
        String s = br.readLine().trim();

        int[] stack = new int[n + 1];
        int size = 0;
        stack[size++] = -1;
        int best = 0;
        long count = 0;
        for (int i = 0; i < n; i++) {
            char c = s.charAt(i);
            if (c == '(') {
                stack[size++] = i;
            } else {
                size--;
                if (size == 0) {
                    stack[size++] = i;
                } else {
                    int len = i - stack[size - 1];
                    if (len > best) {
                        best = len;
                        count = 1;
                    } else if (len == best) {
                        count++;
                    }
                }
            }
        }
        if (best == 0) {
            count = 1;
        }
        System.out.println(best + " " + count);
    }
}
