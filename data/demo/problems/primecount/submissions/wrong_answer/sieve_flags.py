import sys
from array import array


def main():
    data = sys.stdin.buffer.read().split()
    q = int(data[0])
    n = 5000000
    is_p = bytearray([1]) * (n + 1)
    is_p[0] = 0
    i = 2
    while i * i <= n:
        if is_p[i]:
            is_p[i * i::i] = bytearray(len(range(i * i, n + 1, i)))
        i += 1
    cnt = array('i', bytes(4 * (n + 1)))
    c = 0
    for x in range(n + 1):
        c += is_p[x]
        cnt[x] = c
    out = []
    for j in range(q):
        l = int(data[1 + 2 * j])
        r = int(data[2 + 2 * j])
        out.append(str(cnt[r] - cnt[l - 1]))
    sys.stdout.write("\n".join(out) + "\n")


main()
