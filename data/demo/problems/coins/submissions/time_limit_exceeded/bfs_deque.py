import sys
from collections import deque


def fewest(target, coins):
    # breadth-first search from 0 up to the target
    seen = {0: 0}
    dq = deque([0])
    while dq:
        v = dq.popleft()
        if v == target:
            return seen[v]
        for c in coins:
            w = v + c
            if w <= target and w not in seen:
                seen[w] = seen[v] + 1
                dq.append(w)
    return -1


def main():
    data = sys.stdin.read().split()
    k, q = int(data[0]), int(data[1])
    coins = [int(x) for x in data[2:2 + k]]
    amounts = [int(x) for x in data[2 + k:2 + k + q]]
    total = 0
    for a in amounts:
        r = fewest(a, coins)
        if r < 0:
            print(-1)
            return
        total += r
    print(total)


main()
