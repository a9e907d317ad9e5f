import sys

def solve():
    tokens = sys.stdin.read().split()
    k, q = int(tokens[0]), int(tokens[1])
    coin_values = sorted(set(map(int, tokens[2:2 + k])))
    amounts = list(map(int, tokens[2 + k:2 + k + q]))
    limit = max(amounts)
    coin_values = [c for c in coin_values if c <= limit]

    NOPE = 10 ** 12
    fewest = [NOPE] * (limit + 1)
    fewest[0] = 0
    if coin_values:
        biggest = coin_values[-1]
        # small amounts: only coins that fit
        for v in range(1, min(biggest, limit + 1)):
            fewest[v] = min([fewest[v - c] for c in coin_values if c <= v], default=NOPE) + 1
        # from here on every coin fits
        for v in range(biggest, limit + 1):
            fewest[v] = min([fewest[v - c] for c in coin_values]) + 1

    total = 0
    for a in amounts:
        if fewest[a] >= NOPE:
            return -1
        total += fewest[a]
    return total

print(solve())
