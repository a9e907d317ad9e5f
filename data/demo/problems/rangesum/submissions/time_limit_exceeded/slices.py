import sys

input = sys.stdin.readline

n, q = map(int, input().split())
a = list(map(int, input().split()))
out = []
for _ in range(q):
    l, r = map(int, input().split())
    out.append(sum(a[l - 1:r]))
print("\n".join(map(str, out)))
