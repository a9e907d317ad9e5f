import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))

    # compress values to ranks 1..m (equal values share a rank)
    vals = sorted(set(a))
    rank = {v: i + 1 for i, v in enumerate(vals)}
    m = len(vals)

    tree = [0] * (m + 1)
    total = 0
    for seen, v in enumerate(a):
        r = rank[v]
        # how many earlier elements are <= v
        s = 0
        i = r
        while i > 0:
            s += tree[i]
            i &= i - 1
        total += seen - s
        i = r
        while i <= m:
            tree[i] += 1
            i += i & -i
    print(total)


main()
