import sys

data = sys.stdin.read().split()
n = int(data[0])
a = [int(x) for x in data[1:n + 1]]

pre = [0] * (n + 1)
for i in range(n):
    pre[i + 1] = pre[i] + a[i]

best = a[0]
for l in range(n):
    base = pre[l]
    for r in range(l + 1, n + 1):
        if pre[r] - base > best:
            best = pre[r] - base
print(best)
