import sys
from bisect import bisect_right


def count_and_sort(seq):
    """Return (sorted copy of seq, number of inversions in seq)."""
    if len(seq) <= 32:
        inv = 0
        for i in range(len(seq)):
            x = seq[i]
            for y in seq[i + 1:]:
                if x > y:
                    inv += 1
        return sorted(seq), inv
    half = len(seq) // 2
    left, inv_left = count_and_sort(seq[:half])
    right, inv_right = count_and_sort(seq[half:])
    cross = 0
    nl = len(left)
    for y in right:
        # elements of the left half strictly greater than y
        cross += nl - bisect_right(left, y)
    return sorted(left + right), inv_left + inv_right + cross


def main():
    tokens = sys.stdin.read().split()
    n = int(tokens[0])
    values = [int(t) for t in tokens[1:1 + n]]
    print(count_and_sort(values)[1])


if __name__ == "__main__":
    main()
