import sys

def main():
    data = sys.stdin.read().split()
    n, x = int(data[0]), int(data[1])
    a = sorted(map(int, data[2:2 + n]))
    res = 0
    lo, hi = 0, n - 1
    while lo < hi:
        if a[lo] + a[hi] <= x:
            res += hi - lo
            lo += 1
        else:
        hi -= 1
    print(res)

main()
