import sys
from functools import lru_cache

MOD = 10**9 + 7

def main():
    data = sys.stdin.read().split()
    R, C = int(data[0]), int(data[1])
    grid = data[2:2 + R]

    @lru_cache(maxsize=None)
    def ways(i, j):
        # number of routes from (0, 0) that end in cell (i, j)
        if i < 0 or j < 0:
            return 0
        ch = grid[i][j]
        if ch == '#':
            return 0
        w = 1 if ch == '.' else int(ch)
        if i == 0 and j == 0:
            return w
        return (ways(i - 1, j) + ways(i, j - 1)) * w % MOD

    print(ways(R - 1, C - 1))

main()
