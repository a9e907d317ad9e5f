import sys

data = sys.stdin.buffer.read().split()
k = int(data[0])
q = int(data[1])
coins = sorted(set(int(v) for v in data[2:2 + k]))
amounts = [int(v) for v in data[2 + k:2 + k + q]]

INF = 10 ** 9
top = max(amounts)
coins = [c for c in coins if c <= top]
dp = [INF] * (top + 1)
dp[0] = 0
for x in range(1, top + 1):
    options = [dp[x - c] for c in coins if c <= x]
    if options:
        dp[x] = min(min(options) + 1, INF)

total = sum(dp[a] for a in amounts)
if total >= INF:
    print(-1)
else:
    print(total)
