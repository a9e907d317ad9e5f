import sys
from bisect import bisect_right


def main():
    data = sys.stdin.read().split()
    n, x = int(data[0]), int(data[1])
    a = sorted(int(t) for t in data[2:2 + n])
    ordered = 0
    self_pairs = 0
    for v in a:
        ordered += bisect_right(a, x - v)
        if 2 * v < x:
            self_pairs += 1
    print((ordered - self_pairs) // 2)


main()
