import sys

def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))
    dp = [0] * n
    dp[0] = a[0]
    dp[1] = max(a[1], a[0] + a[1])
    for i in range(2, n):
        dp[i] = max(a[i], dp[i - 1] + a[i])
    print(max(dp))

main()
