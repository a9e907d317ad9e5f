import sys
from bisect import bisect_right

def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    segs = sorted((int(data[2 * i + 1]), int(data[2 * i + 2])) for i in range(n))
    starts = [s[0] for s in segs]
    # nxt[i] = first request (by start) that begins after request i ends
    nxt = [bisect_right(starts, segs[i][1]) for i in range(n)]
    memo = {}

    def best(i):
        if i >= n:
            return 0
        if i in memo:
            return memo[i]
        res = max(best(i + 1), 1 + best(nxt[i]))
        memo[i] = res
        return res

    print(best(0))

main()
