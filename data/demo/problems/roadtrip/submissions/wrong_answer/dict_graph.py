import sys
import heapq
from collections import defaultdict


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    m = int(data[1])
    roads = defaultdict(dict)
    idx = 2
    for _ in range(m):
        a, b, c = int(data[idx]), int(data[idx + 1]), int(data[idx + 2])
        idx += 3
        roads[a][b] = c

    INF = 10 ** 18
    best = [INF] * (n + 1)
    best[1] = 0
    heap = [(0, 1)]
    while heap:
        d, town = heapq.heappop(heap)
        if d > best[town]:
            continue
        for nxt, c in roads[town].items():
            if d + c < best[nxt]:
                best[nxt] = d + c
                heapq.heappush(heap, (best[nxt], nxt))
    print(best[n] if best[n] < INF else -1)


main()
