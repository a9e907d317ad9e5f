import sys


def main():
    data = sys.stdin.buffer.read().split()
    k, q = int(data[0]), int(data[1])
    coins = sorted(set(int(x) for x in data[2:2 + k]))
    amounts = [int(x) for x in data[2 + k:2 + k + q]]
    top = max(amounts)
    coins = [c for c in coins if c <= top]
    if not coins:
        print(-1)
        return
    INF = 1 << 40
    big = coins[-1]
    # dp[x] = fewest coins summing to x; indices x - c < 0 wrap into the INF padding at the end
    dp = [INF] * (top + 1 + big)
    dp[0] = 0
    for x in range(1, top + 1):
        dp[x] = min([dp[x - c] for c in coins]) + 1
    total = 0
    for a in amounts:
        if dp[a] >= INF:
            print(-1)
            return
        total += dp[a]
    print(total)


main()
