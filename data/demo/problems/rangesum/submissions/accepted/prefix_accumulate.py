import sys
from itertools import accumulate

tokens = sys.stdin.buffer.read().split()
n, q = int(tokens[0]), int(tokens[1])
pref = [0]
pref.extend(accumulate(map(int, tokens[2:2 + n])))
nums = list(map(int, tokens[2 + n:2 + n + 2 * q]))
res = [pref[nums[i + 1]] - pref[nums[i] - 1] for i in range(0, 2 * q, 2)]
print("\n".join(map(str, res)))
