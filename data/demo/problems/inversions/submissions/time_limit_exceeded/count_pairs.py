import sys

data = sys.stdin.read().split()
n = int(data[0])
a = list(map(int, data[1:n + 1]))

total = 0
for i in range(n):
    x = a[i]
    total += sum(1 for y in a[i + 1:] if y < x)
print(total)
