import sys

MOD = 1_000_000_007
VALUE = {'#': 0, '.': 1}
for d in '23456789':
    VALUE[d] = int(d)


def main():
    lines = sys.stdin.read().split()
    R, C = int(lines[0]), int(lines[1])
    grid = lines[2:2 + R]

    above = [0] * C
    for i in range(R):
        w = [VALUE[ch] for ch in grid[i]]
        row = [0] * C
        run = 1 if i == 0 else 0   # the start cell receives one "empty" route
        for j in range(C):
            if w[j]:
                run = (run + above[j]) * w[j] % MOD
            else:
                run = 0
            row[j] = run
        above = row
    print(above[C - 1])


main()
