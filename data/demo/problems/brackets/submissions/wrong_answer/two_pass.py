import sys


def scan(s, opener):
    """counter scan; returns (best length, how many times it was reached)"""
    a = b = 0
    best, cnt = 0, 0
    for ch in s:
        if ch == opener:
            a += 1
        else:
            b += 1
        if a == b:
            cur = 2 * b
            if cur > best:
                best, cnt = cur, 1
            elif cur == best:
                cnt += 1
        elif b > a:
            a = b = 0
    return best, cnt


def main():
    data = sys.stdin.read().split()
    s = data[1]
    l1, c1 = scan(s, '(')
    l2, c2 = scan(s[::-1], ')')
    if l1 > l2:
        print(l1, c1)
    elif l2 > l1:
        print(l2, c2)
    elif l1 == 0:
        print(0, 1)
    else:
        print(l1, max(c1, c2))


main()
