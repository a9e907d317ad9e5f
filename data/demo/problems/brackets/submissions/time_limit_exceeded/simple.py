import sys

data = sys.stdin.read().split()
n = int(data[0])
s = data[1]
best, cnt = 0, 1
for i in range(n):
    if s[i] == ')':
        continue
    bal = 0
    for j in range(i, n):
        bal += 1 if s[j] == '(' else -1
        if bal < 0:
            break
        if bal == 0:
            L = j - i + 1
            if L > best:
                best, cnt = L, 1
            elif L == best:
                cnt += 1
print(best, cnt)
