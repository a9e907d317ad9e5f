import sys
from array import array

N = 5000000


def main():
    raw = sys.stdin.buffer.read().split()
    q = int(raw[0])
    sieve = bytearray([1]) * N
    sieve[0] = sieve[1] = 0
    k = 2
    while k * k < N:
        if sieve[k]:
            sieve[k * k::k] = bytes(len(range(k * k, N, k)))
        k += 1
    table = array('l', bytes(8 * N))
    running = 0
    for v in range(N):
        running += sieve[v]
        table[v] = running
    lines = []
    for t in range(q):
        lo = int(raw[2 * t + 1])
        hi = int(raw[2 * t + 2])
        lines.append(table[hi] - table[lo - 1])
    sys.stdout.write("\n".join(map(str, lines)) + "\n")


main()
