import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, x = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    # two pointers: for every left end, count partners to its right that still fit
    pairs = 0
    lo, hi = 0, n - 1
    while lo < hi:
        if a[lo] + a[hi] <= x:
            pairs += hi - lo
            lo += 1
        else:
            hi -= 1
    print(pairs)


main()
