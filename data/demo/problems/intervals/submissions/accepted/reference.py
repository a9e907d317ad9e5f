import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    ls = list(map(int, data[1:2 * n + 1:2]))
    rs = list(map(int, data[2:2 * n + 2:2]))
    # classic greedy: always keep the booking that finishes first
    order = sorted(range(n), key=rs.__getitem__)
    last_end = -1
    count = 0
    for i in order:
        if ls[i] > last_end:
            count += 1
            last_end = rs[i]
    print(count)


main()
