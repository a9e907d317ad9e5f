import sys
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    meetings = []
    for i in range(n):
        meetings.append((int(data[1 + 2 * i]), int(data[2 + 2 * i])))
    meetings.sort()
    starts = [m[0] for m in meetings]
    ends = [m[1] for m in meetings]

    # rooms: walk through the meetings in start order, dropping the ones that are over
    rooms = 0
    finished = 0
    for i in range(n):
        while finished < i and ends[finished] <= starts[i]:
            finished += 1
        rooms = max(rooms, i + 1 - finished)

    # pairs: all pairs minus the pairs where one meeting is over before the other starts
    sorted_ends = sorted(ends)
    apart = 0
    for s in starts:
        apart += bisect_right(sorted_ends, s)
    print(rooms, n * (n - 1) // 2 - apart)


main()
