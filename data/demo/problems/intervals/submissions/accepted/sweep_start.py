import sys

lines = sys.stdin.read().split("\n")
n = int(lines[0])
reqs = []
for i in range(1, n + 1):
    a, b = lines[i].split()
    reqs.append((int(a), int(b)))
reqs.sort()

count = 0
current_end = -1
for start, finish in reqs:
    if start > current_end:
        count += 1
        current_end = finish
    elif finish < current_end:
        # swap the held request for this one: it frees the hall sooner
        current_end = finish
print(count)
