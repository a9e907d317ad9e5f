import sys
from bisect import bisect_left, bisect_right
from itertools import compress
from math import isqrt

LIMIT = 5_000_000


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    sieve = bytearray([1]) * (LIMIT + 1)
    sieve[0] = sieve[1] = 0
    for i in range(2, isqrt(LIMIT) + 1):
        if sieve[i]:
            sieve[i * i::i] = bytes(len(range(i * i, LIMIT + 1, i)))
    primes = list(compress(range(LIMIT + 1), sieve))
    out = []
    for k in range(q):
        l = int(data[1 + 2 * k])
        r = int(data[2 + 2 * k])
        out.append(bisect_right(primes, r) - bisect_left(primes, l))
    sys.stdout.write("\n".join(map(str, out)) + "\n")


main()
