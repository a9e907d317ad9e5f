import java.util.*;
import java.io.*;

public class Main {
    public static void main(String[] args) throws IOException {
        StreamTokenizer in = new StreamTokenizer(new BufferedReader(new InputStreamReader(System.in)));
        in.nextToken();
        int k = (int) in.nval;
        in.nextToken();
        int q = (int) in.nval;
        int[] coins = new int[k];
        for (int i = 0; i < k; i++) {
            in.nextToken();
            coins[i] = (int) in.nval;
        }
        int[] amounts = new int[q];
        int maxA = 0;
        for (int i = 0; i < q; i++) {
            in.nextToken();
            amounts[i] = (int) in.nval;
            maxA = Math.max(maxA, amounts[i]);
        }

        int[] minCoins = new int[maxA + 1];
        Arrays.fill(minCoins, Integer.MAX_VALUE);
        minCoins[0] = 0;
        for (int coin : coins) {
            for (int amt = coin; amt <= maxA; amt++) {
                minCoins[amt] = Math.min(minCoins[amt], minCoins[amt - coin] + 1);
            }
        }

        long total = 0;
        for (int amt : amounts) {
            if (minCoins[amt] == Integer.MAX_VALUE) {
                System.out.println(-1);
                return;
            }
            total += minCoins[amt];
        }
        System.out.println(total);
    }
}
