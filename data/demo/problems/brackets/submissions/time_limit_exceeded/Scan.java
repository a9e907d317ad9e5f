import java.util.Scanner;

public class Main {
    public static void main(String[] args) {
        Scanner sc = new Scanner(System.in);
        int n = sc.nextInt();
        String s = sc.next();
        int best = 0;
        int count = 1;
        for (int start = 0; start < n; start++) {
            int depth = 0;
            for (int end = start; end < n && depth >= 0; end++) {
                depth += s.charAt(end) == '(' ? 1 : -1;
                if (depth == 0) {
                    int len = end - start + 1;
                    if (len > best) {
                        best = len;
                        count = 1;
                    } else if (len == best) {
                        count++;
                    }
                }
            }
        }
        System.out.println(best + " " + count);
    }
}
