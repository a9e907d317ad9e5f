import sys

def main():
    data = sys.stdin.read().split()
    n, k, t = int(data[0]), int(data[1]), int(data[2])
    scores = [int(x) for x in data[3:3 + n]]
    eligible = sorted((s for s in scores if s >= t), reverse=True)
    if not eligible:
        print(0)
        return
    if len(eligible) > k and eligible[k] == eligible[k - 1]:
        cut = eligible[k - 1]
        accepted = [s for s in eligible if s > cut]
    else:
        accepted = eligible[:k]
    print(len(accepted), sum(accepted))

main()
