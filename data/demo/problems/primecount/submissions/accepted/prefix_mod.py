import sys
from array import array
from itertools import accumulate


def build(n):
    flags = bytearray([1]) * (n + 1)
    flags[0] = 0
    flags[1] = 0
    p = 2
    while p * p <= n:
        if flags[p]:
            flags[p * p::p] = bytes((n - p * p) // p + 1)
        p += 1
    return array('i', accumulate(flags))


def main():
    tokens = sys.stdin.buffer.read().split()
    q = int(tokens[0])
    vals = list(map(int, tokens[1:1 + 2 * q]))
    hi = max(vals[1::2]) if q else 1
    pc = build(max(hi, 2))
    res = []
    for i in range(0, 2 * q, 2):
        l, r = vals[i], vals[i + 1]
        res.append(pc[r] - pc[l - 1])
    print("\n".join(map(str, res)))


if __name__ == "__main__":
    main()
