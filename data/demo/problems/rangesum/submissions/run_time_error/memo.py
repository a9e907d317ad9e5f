import sys
from functools import lru_cache


def main():
    data = sys.stdin.buffer.read().split()
    n, q = int(data[0]), int(data[1])
    a = [0] + [int(x) for x in data[2:2 + n]]

    @lru_cache(maxsize=None)
    def upto(i):
        if i == 0:
            return 0
        return upto(i - 1) + a[i]

    pos = 2 + n
    res = []
    for _ in range(q):
        l, r = int(data[pos]), int(data[pos + 1])
        pos += 2
        res.append(upto(r) - upto(l - 1))
    sys.stdout.write("\n".join(map(str, res)) + "\n")


main()
