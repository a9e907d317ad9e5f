import sys


def main():
    data = sys.stdin.read().split()
    n = int(data[0])
    a = list(map(int, data[1:n + 1]))

    def solve(i):
        # out-of-order pairs whose left element is at position i or later
        if i >= n:
            return 0
        here = 0
        for j in range(i + 1, n):
            if a[j] < a[i]:
                here += 1
        return here + solve(i + 1)

    print(solve(0))


main()
