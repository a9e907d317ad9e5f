import sys
from bisect import bisect_left, bisect_right
from itertools import compress


def primes_upto(m):
    if m < 2:
        return []
    s = bytearray([1]) * (m + 1)
    s[0] = s[1] = 0
    for i in range(2, int(m ** 0.5)):
        if s[i]:
            s[i * i::i] = bytes(len(range(i * i, m + 1, i)))
    return list(compress(range(m + 1), s))


def main():
    it = iter(map(int, sys.stdin.buffer.read().split()))
    q = next(it)
    qs = [(next(it), next(it)) for _ in range(q)]
    top = max(r for _, r in qs)
    ps = primes_upto(top)
    ans = [bisect_right(ps, r) - bisect_left(ps, l) for l, r in qs]
    print("\n".join(map(str, ans)))


main()
