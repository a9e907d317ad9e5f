import sys
from bisect import bisect_right

def main():
    data = sys.stdin.buffer.read().split()
    n = int(data[0]); x = int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    total = 0
    for i, v in enumerate(a):
        total += bisect_right(a, x - v, i + 1) - (i + 1)
    print(total)

if __name__ == "__main__":
    main()
