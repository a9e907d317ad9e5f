import sys

def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    s = 0
    lo = 0
    hi = None
    for i in range(1, n + 1):
        s += int(data[i])
        if hi is None or s > hi:
            hi = s
        lo = min(lo, s)
    # the best stretch is the highest prefix minus the lowest prefix
    print(hi - lo)

main()
