#!/usr/bin/env python3
"""Deterministic test generator for "admissions".

Writes data/secret/NN.in and computes NN.ans with submissions/accepted/reference.py.
Run from anywhere: python3 generators/gen.py
"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECRET = os.path.join(ROOT, "data", "secret")
REFERENCE = os.path.join(ROOT, "submissions", "accepted", "reference.py")

rng = random.Random(20240611)


def fmt(n, k, t, scores):
    assert len(scores) == n and 1 <= k <= n
    return "%d %d %d\n%s\n" % (n, k, t, " ".join(map(str, scores)))


def tie_at_cut(scores, k, t):
    """Copy the k-th best eligible score onto the next eligible one so the cut splits a group."""
    elig = sorted((x for x in scores if x >= t), reverse=True)
    if len(elig) <= k:
        return scores
    cut, victim = elig[k - 1], elig[k]
    out = list(scores)
    for i, x in enumerate(out):
        if x == victim:
            out[i] = cut
            break
    return out


tests = []

# 01: smallest input, score 0 with threshold 0
tests.append(fmt(1, 1, 0, [0]))
# 02: single applicant just below the threshold
tests.append(fmt(1, 1, 10**9, [10**9 - 1]))
# 03: everybody equal and the group does not fit
tests.append(fmt(6, 5, 0, [7] * 6))
# 04: everybody equal, exactly at the threshold, group fits exactly
tests.append(fmt(6, 6, 7, [7] * 6))
# 05: maximal scores, all admitted (total exceeds 2^31)
tests.append(fmt(3, 3, 10**9, [10**9] * 3))
# 06: small, many ties, some scores equal to the threshold
s = [rng.randint(1, 5) for _ in range(20)]
tests.append(fmt(20, 9, 2, s))
# 07: capacity equals n, about half eligible, large scores
s = [rng.randint(0, 10**9) for _ in range(1000)]
tests.append(fmt(1000, 1000, 5 * 10**8, s))
# 08: medium, a tie placed exactly at the cut
s = [rng.randint(0, 10**9) for _ in range(1000)]
tests.append(fmt(1000, 300, 2 * 10**8, tie_at_cut(s, 300, 2 * 10**8)))
# 09: large scores, tie at the cut, total far above 2^32
s = [rng.randint(9 * 10**8, 10**9) for _ in range(8000)]
tests.append(fmt(8000, 6000, 0, tie_at_cut(s, 6000, 0)))
# 10: many small scores, heavy ties
s = [rng.randint(0, 50) for _ in range(20000)]
tests.append(fmt(20000, 10000, 10, s))
# 11: capacity one, unique best
s = [rng.randint(0, 10**9 - 1) for _ in range(2000)]
s[rng.randrange(2000)] = 10**9
tests.append(fmt(2000, 1, 0, s))
# 12: capacity one, best score shared
s = [rng.randint(0, 10**9 - 1) for _ in range(2000)]
s[5] = s[1777] = 10**9
tests.append(fmt(2000, 1, 0, s))
# 13: maximal n
n = 300000
s = [rng.randint(0, 99) for _ in range(n)]
tests.append(fmt(n, 150000, 5, s))

os.makedirs(SECRET, exist_ok=True)
for i, text in enumerate(tests, 1):
    base = os.path.join(SECRET, "%02d" % i)
    with open(base + ".in", "w") as f:
        f.write(text)
    ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                         stdout=subprocess.PIPE, check=True).stdout
    with open(base + ".ans", "wb") as f:
        f.write(ans)
print("wrote %d tests to %s" % (len(tests), SECRET))
