import sys

def main():
    data = list(map(int, sys.stdin.read().split()))
    k, q = data[0], data[1]
    coins = data[2:2 + k]
    amounts = data[2 + k:2 + k + q]
    top = max(amounts)
    INF = float('inf')
    dp = [INF] * (top + 1)
    dp[0] = 0
    for c in coins:
        dp[c] = 1
    for x in range(1, top + 1):
        if dp[x] == 1:
            continue
        best = dp[x]
        for c in coins:
            if c < x and dp[x - c] + 1 < best:
                best = dp[x - c] + 1
        dp[x] = best
    total = 0
    for a in amounts:
        if dp[a] == INF:
            print(-1)
            return
        total += dp[a]
    print(total)

main()
