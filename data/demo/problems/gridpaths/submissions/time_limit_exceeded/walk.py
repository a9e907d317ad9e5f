import sys
sys.setrecursionlimit(100000)

MOD = 10**9 + 7


def main():
    data = sys.stdin.read().split()
    R, C = int(data[0]), int(data[1])
    g = data[2:2 + R]

    def walk(i, j):
        ch = g[i][j]
        if ch == '#':
            return 0
        w = 1 if ch == '.' else int(ch)
        if i == R - 1 and j == C - 1:
            return w
        total = 0
        if i + 1 < R:
            total += walk(i + 1, j)
        if j + 1 < C:
            total += walk(i, j + 1)
        return total * w % MOD

    print(walk(0, 0))


main()
