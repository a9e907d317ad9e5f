import sys
from bisect import bisect_left, bisect_right


def main():
    data = list(map(int, sys.stdin.buffer.read().split()))
    n = data[0]
    s = data[1::2]
    e = data[2::2]
    ends = sorted(e)
    starts = sorted(s)

    # rooms: at each start time, meetings started so far minus meetings already over
    rooms = 0
    for i, t in enumerate(starts):
        over = bisect_right(ends, t)
        rooms = max(rooms, i + 1 - over)

    # pairs that do not clash: one of them ends before the other starts
    apart = 0
    for t in s:
        apart += bisect_left(ends, t)
    print(rooms, n * (n - 1) // 2 - apart)


main()
