import sys

def main():
    data = sys.stdin.read().split()
    n, k, t = int(data[0]), int(data[1]), int(data[2])
    pool = [int(x) for x in data[3:3 + n] if int(x) >= t]
    chosen = []
    while len(chosen) < k and pool:
        best = max(pool)
        pool.remove(best)
        chosen.append(best)
    accepted = len(chosen)
    if pool and chosen and max(pool) == chosen[-1]:
        last = chosen[-1]
        while accepted > 0 and chosen[accepted - 1] == last:
            accepted -= 1
    print(accepted, sum(chosen[:accepted]))

main()
