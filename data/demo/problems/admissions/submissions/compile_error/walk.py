import sys

def main():
    vals = sys.stdin.read().split()
    n, k, t = int(vals[0]), int(vals[1]), int(vals[2])
    scores = sorted((int(v) for v in vals[3:3 + n] if int(v) >= t), reverse=True)
    accepted = 0
    total = 0
    i = 0
    while i < len(scores)
        j = i
        while j < len(scores) and scores[j] == scores[i]:
            j += 1
        if accepted + (j - i) > k:
            break
        accepted += j - i
        total += scores[i] * (j - i)
        i = j
    print(accepted, total)

main()
