import sys


def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0])
    starts = sorted(map(int, data[1:2 * n + 1:2]))
    ends = sorted(map(int, data[2:2 * n + 2:2]))
    rooms = 0
    apart = 0  # ordered pairs (i, j) with e_i <= s_j
    j = 0
    for i in range(n):
        x = starts[i]
        while j < n and ends[j] <= x:
            j += 1
        apart += j
        if i + 1 - j > rooms:
            rooms = i + 1 - j
    print(rooms, n * (n - 1) // 2 - apart)


main()
