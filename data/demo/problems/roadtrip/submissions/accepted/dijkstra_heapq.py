import sys
from heapq import heappush, heappop


def solve():
    it = iter(sys.stdin.buffer.read().split())
    n = int(next(it))
    m = int(next(it))
    graph = [[] for _ in range(n + 1)]
    for _ in range(m):
        a = int(next(it))
        b = int(next(it))
        c = int(next(it))
        graph[a].append((b, c))

    dist = [-1] * (n + 1)
    done = [False] * (n + 1)
    dist[1] = 0
    pq = [(0, 1)]
    while pq:
        d, x = heappop(pq)
        if done[x]:
            continue
        done[x] = True
        if x == n:
            break
        for y, c in graph[x]:
            nd = d + c
            if dist[y] == -1 or nd < dist[y]:
                dist[y] = nd
                heappush(pq, (nd, y))
    return dist[n]


print(solve())
