import sys

def solve():
    tokens = sys.stdin.buffer.read().split()
    n = int(tokens[0])
    values = map(int, tokens[1:1 + n])
    best = -10**19
    run = 0
    for v in values:
        run = max(run + v, v)
        if run > best:
            best = run
    sys.stdout.write(str(best) + "\n")

solve()
