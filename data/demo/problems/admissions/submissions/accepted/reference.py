import sys
from bisect import bisect_right


def main():
    data = sys.stdin.buffer.read().split()
    n, k, t = int(data[0]), int(data[1]), int(data[2])
    scores = [int(x) for x in data[3:3 + n]]
    eligible = sorted(x for x in scores if x >= t)
    m = len(eligible)
    if m <= k:
        accepted = eligible
    else:
        # the k-th best eligible score is eligible[m - k]
        cut = eligible[m - k]
        if eligible[m - k - 1] == cut:
            # the group with score `cut` does not fit: keep only strictly better ones
            accepted = eligible[bisect_right(eligible, cut):]
        else:
            accepted = eligible[m - k:]
    print(len(accepted), sum(accepted))


main()
