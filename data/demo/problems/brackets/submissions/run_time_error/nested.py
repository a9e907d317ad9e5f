import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    s = data[1]
    partner = [-1] * n

    def close(i):
        # s[i] == '(' ; returns the index just after its partner, or -1
        j = i + 1
        while j < n and s[j] == '(':
            j = close(j)
            if j < 0:
                return -1
        if j < n:
            partner[i] = j
            return j + 1
        return -1

    i = 0
    while i < n:
        if s[i] == ')':
            i += 1
            continue
        i = close(i)
        if i < 0:
            break

    inside = [False] * n
    for a in range(n):
        if partner[a] >= 0:
            inside[a] = inside[partner[a]] = True

    best, cnt, run = 0, 1, 0
    for a in range(n + 1):
        if a < n and inside[a]:
            run += 1
            continue
        if run > best:
            best, cnt = run, 1
        elif run == best and run > 0:
            cnt += 1
        run = 0
    print(best, cnt)


main()
