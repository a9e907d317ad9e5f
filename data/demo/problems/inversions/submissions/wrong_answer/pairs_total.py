import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))

    # pairs (i < j) with a[i] <= a[j], counted with a Fenwick tree over compressed values
    ranks = {v: k for k, v in enumerate(sorted(set(a)), 1)}
    m = len(ranks)
    bit = [0] * (m + 1)
    good = 0
    for x in a:
        r = ranks[x]
        i = r
        while i:
            good += bit[i]
            i -= i & -i
        i = r
        while i <= m:
            bit[i] += 1
            i += i & -i

    print(n * (n - 1) / 2 - good)


main()
