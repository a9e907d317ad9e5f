import sys


def main():
    data = sys.stdin.buffer.read().split()
    r, c = int(data[0]), int(data[1])
    rows = data[2:2 + r]
    MOD = 10 ** 9 + 7
    # weight of a cell by its byte: '#' -> 0, '.' -> 1, '2'..'9' -> digit
    weight = [0] * 256
    weight[ord('.')] = 1
    for d in range(2, 10):
        weight[ord(str(d))] = d
    # a virtual 1 "above" the start cell seeds the count
    prev = [0] * c
    prev[0] = 1
    for row in rows:
        cur = []
        left = 0
        for up, ch in zip(prev, row):
            left = (up + left) * weight[ch] % MOD
            cur.append(left)
        prev = cur
    print(prev[c - 1])


main()
