import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    best = None
    cur = 0
    for tok in data[1:n + 1]:
        x = int(tok)
        # extend the current run, or start a new one at x
        cur = cur + x if cur > 0 else x
        if best is None or cur > best:
            best = cur
    print(best)


main()
