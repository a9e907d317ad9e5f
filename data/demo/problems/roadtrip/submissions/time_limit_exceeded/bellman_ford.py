import sys


def main():
    data = sys.stdin.buffer.read().split()
    n, m = int(data[0]), int(data[1])
    edges = []
    for i in range(m):
        u = int(data[2 + 3 * i])
        v = int(data[3 + 3 * i])
        w = int(data[4 + 3 * i])
        edges.append((u, v, w))
    INF = float('inf')
    dist = [INF] * (n + 1)
    dist[1] = 0
    # relax all roads until nothing changes
    for _ in range(n - 1):
        changed = False
        for u, v, w in edges:
            if dist[u] + w < dist[v]:
                dist[v] = dist[u] + w
                changed = True
        if not changed:
            break
    print(dist[n] if dist[n] < INF else -1)


main()
