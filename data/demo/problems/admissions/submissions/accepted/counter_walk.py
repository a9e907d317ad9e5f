import sys
from collections import Counter

def solve():
    it = sys.stdin.buffer.read().split()
    n, k, t = int(it[0]), int(it[1]), int(it[2])
    cnt = Counter(int(v) for v in it[3:3 + n])
    accepted = 0
    total = 0
    for score in sorted(cnt, reverse=True):
        if score < t:
            break
        c = cnt[score]
        if accepted + c > k:
            break
        accepted += c
        total += score * c
    sys.stdout.write(f"{accepted} {total}\n")

solve()
