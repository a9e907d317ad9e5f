import sys

def main():
    data = sys.stdin.read().split()
    n, q = int(data[0]), int(data[1])
    a = [int(x) for x in data[2:2 + n]]
    # cum[i] = a[0] + ... + a[i]
    cum = []
    total = 0
    for x in a:
        total += x
        cum.append(total)
    out = []
    idx = 2 + n
    for _ in range(q):
        l, r = int(data[idx]), int(data[idx + 1])
        idx += 2
        out.append(str(cum[r - 1] - cum[l - 2]))
    print("\n".join(out))

main()
