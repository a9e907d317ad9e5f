import sys

def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    segs = [(int(data[2 * i + 1]), int(data[2 * i + 2])) for i in range(n)]
    segs.sort(key=lambda s: s[1])
    best = [1] * n
    for i in range(n):
        li = segs[i][0]
        for j in range(i):
            if segs[j][1] < li and best[j] + 1 > best[i]:
                best[i] = best[j] + 1
    print(max(best))

main()
