import sys


def take(groups, idx, room, accepted, total):
    """Admit score groups from the best one down while they fit."""
    if idx == len(groups):
        return accepted, total
    score, size = groups[idx]
    if size > room:
        return accepted, total
    return take(groups, idx + 1, room - size, accepted + size, total + score * size)


def main():
    data = sys.stdin.buffer.read().split()
    n, k, t = int(data[0]), int(data[1]), int(data[2])
    counts = {}
    for tok in data[3:3 + n]:
        s = int(tok)
        if s >= t:
            counts[s] = counts.get(s, 0) + 1
    groups = sorted(counts.items(), reverse=True)
    accepted, total = take(groups, 0, k, 0, 0)
    print(accepted, total)


main()
