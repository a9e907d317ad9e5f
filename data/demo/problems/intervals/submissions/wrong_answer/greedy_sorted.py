import sys

def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    segs = sorted(
        ((int(data[1 + 2 * i]), int(data[2 + 2 * i])) for i in range(n)),
        key=lambda s: s[1],
    )
    last = 0
    picked = 0
    for l, r in segs:
        if l > last:
            picked += 1
            last = r
    print(picked)

main()
