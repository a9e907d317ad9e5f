import sys

def main():
    data = sys.stdin.read().split()
    R, C = int(data[0]), int(data[1])
    grid = data[2:2 + R]
    MOD = 10**9 + 7

    dp = [[0] * C for _ in range(R)]
    for i in range(R):
        row = grid[i]
        cur = dp[i]
        up = dp[i - 1] if i > 0 else None
        for j in range(C):
            ch = row[j]
            if ch == '#':
                continue
            if i == 0 and j == 0:
                cur[j] = 1
                continue
            total = 0
            if up is not None:
                total += up[j]
            if j > 0:
                total += cur[j - 1]
            if ch != '.':
                total *= int(ch)
            cur[j] = total % MOD
    print(dp[R - 1][C - 1])

main()
