import sys
import heapq


def main():
    it = iter(sys.stdin.buffer.read().split())
    n = int(next(it))
    meetings = sorted((int(a), int(b)) for a, b in zip(it, it))
    running = []          # min-heap of end times
    rooms = 0
    pairs = 0
    for s, e in meetings:
        while running and running[0] <= s:
            heapq.heappop(running)
        pairs += len(running)
        heapq.heappush(running, e)
        if len(running) > rooms:
            rooms = len(running)
    print(rooms, pairs)


main()
