import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, x = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    pairs = 0
    for i in range(n):
        ai = a[i]
        j = i + 1
        # a is sorted, so stop at the first partner that is too large
        while j < n and ai + a[j] <= x:
            j += 1
        pairs += j - i - 1
    print(pairs)


main()
