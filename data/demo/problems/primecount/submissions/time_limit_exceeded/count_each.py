import sys
from math import isqrt


def prime(n):
    if n < 2:
        return False
    if n % 2 == 0:
        return n == 2
    for d in range(3, isqrt(n) + 1, 2):
        if n % d == 0:
            return False
    return True


def main():
    data = sys.stdin.read().split()
    q = int(data[0])
    res = []
    for i in range(q):
        l, r = int(data[2 * i + 1]), int(data[2 * i + 2])
        res.append(sum(1 for x in range(l, r + 1) if prime(x)))
    print("\n".join(map(str, res)))


main()
