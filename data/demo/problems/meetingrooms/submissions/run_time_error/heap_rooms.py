import sys
from heapq import heappush, heappop

def main():
    nums = list(map(int, sys.stdin.read().split()))
    n = nums[0]
    meets = sorted(zip(nums[1::2], nums[2::2]))
    h = [meets[0][1]]
    best = 1
    clashes = 0
    for s, e in meets[1:]:
        while h[0] <= s:
            heappop(h)
        clashes += len(h)
        heappush(h, e)
        best = max(best, len(h))
    print(best, clashes)

main()
