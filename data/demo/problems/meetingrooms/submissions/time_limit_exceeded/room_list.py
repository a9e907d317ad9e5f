import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    meetings = sorted((int(data[2 * i + 1]), int(data[2 * i + 2])) for i in range(n))
    free_at = []
    pairs = 0
    for idx, (s, e) in enumerate(meetings):
        for k in range(idx + 1, n):
            if meetings[k][0] >= e:
                break
            pairs += 1
        for r in range(len(free_at)):
            if free_at[r] <= s:
                free_at[r] = e
                break
        else:
            free_at.append(e)
    print(len(free_at), pairs)


main()
