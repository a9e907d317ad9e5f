import sys
from itertools import accumulate

data = sys.stdin.read().split()
n = int(data[0])
prefix = list(accumulate(map(int, data[1:n + 1]), initial=0))

lowest = prefix[0]
answer = None
for p in prefix[1:]:
    cand = p - lowest
    if answer is None or cand > answer:
        answer = cand
    if p < lowest:
        lowest = p
print(answer)
