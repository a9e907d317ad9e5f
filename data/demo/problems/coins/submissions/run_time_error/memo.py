import sys
from functools import lru_cache

def main():
    data = sys.stdin.read().split()
    k, q = int(data[0]), int(data[1])
    coins = tuple(sorted(set(int(x) for x in data[2:2 + k]), reverse=True))
    amounts = [int(x) for x in data[2 + k:2 + k + q]]

    @lru_cache(maxsize=None)
    def best(x):
        if x == 0:
            return 0
        res = -1
        for c in coins:
            if c <= x:
                r = best(x - c)
                if r >= 0 and (res < 0 or r + 1 < res):
                    res = r + 1
        return res

    total = 0
    for a in amounts:
        r = best(a)
        if r < 0:
            print(-1)
            return
        total += r
    print(total)

main()
