import sys

def main():
    it = iter(sys.stdin.buffer.read().split())
    n = int(next(it))
    pairs = [(int(next(it)), int(next(it))) for _ in range(n)]
    pairs.sort(key=lambda p: p[1])
    ans = 0
    end = -1
    for l, r in pairs:
        if l > end:
            ans += 1
            end = r
    print(ans)

if __name__ == "__main__":
    main()
