import sys

def solve(s):
    n = len(s)
    ok = bytearray(n)
    st = []
    for i, c in enumerate(s):
        if c == '(':
            st.append(i)
        elif st:
            ok[st.pop()] = 1
            ok[i] = 1
    # lengths of maximal runs of matched characters
    runs = [len(r) for r in bytes(ok).split(b'\x00') if r]
    if not runs:
        return 0, 1
    m = max(runs)
    return m, runs.count(m)

def main():
    tokens = sys.stdin.read().split()
    n = int(tokens[0])
    s = tokens[1][:n]
    L, C = solve(s)
    sys.stdout.write(f"{L} {C}\n")

main()
