import sys


def count(a, x, lo, hi):
    if lo >= hi:
        return 0
    if a[lo] + a[hi] <= x:
        return (hi - lo) + count(a, x, lo + 1, hi)
    return count(a, x, lo, hi - 1)


def main():
    data = sys.stdin.read().split()
    n, x = int(data[0]), int(data[1])
    a = sorted(int(v) for v in data[2:2 + n])
    print(count(a, x, 0, n - 1))


main()
