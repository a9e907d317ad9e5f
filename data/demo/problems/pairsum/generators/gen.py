#!/usr/bin/env python3
"""Deterministic test generator for "pairsum".

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

A = 10**9
rng = random.Random(777001)


def fmt(x, a):
    assert 1 <= len(a) <= 300000 and -2 * A <= x <= 2 * A
    assert all(-A <= v <= A for v in a)
    return "%d %d\n%s\n" % (len(a), x, " ".join(map(str, a)))


def rand_list(n, lo, hi):
    return [rng.randint(lo, hi) for _ in range(n)]


tests = []

# 01: a single element, no pair at all
tests.append(fmt(5, [3]))
# 02: two maximal values, sum exactly X
tests.append(fmt(2 * A, [A, A]))
# 03: two minimal values, sum exactly X
tests.append(fmt(-2 * A, [-A, -A]))
# 04: two maximal values, X one less than the sum
tests.append(fmt(2 * A - 1, [A, A]))
# 05: all equal, every pair sums exactly to X
tests.append(fmt(10, [5] * 10))
# 06: small, negative odd X, values around X/2
a = rand_list(20, -12, 6)
a[3] = -3
a[11] = -4
tests.append(fmt(-7, a))
# 07: X maximal, values over the full range: every pair counts
tests.append(fmt(2 * A, rand_list(1000, -A, A)))
# 08: X minimal, only pairs of minimal values count
a = rand_list(1000, -A, A)
for i in rng.sample(range(1000), 12):
    a[i] = -A
tests.append(fmt(-2 * A, a))
# 09: random, full range
tests.append(fmt(123456789, rand_list(3000, -A, A)))
# 10: random, X near zero, full range, sorted descending
tests.append(fmt(-1, sorted(rand_list(3000, -A, A), reverse=True)))
# 11: heavy duplicates, X = 0
tests.append(fmt(0, rand_list(15000, -50, 50)))
# 12: negative X, full range
tests.append(fmt(-500000001, rand_list(6000, -A, A)))
# 13: maximal n, answer far above 2^32
tests.append(fmt(99, rand_list(300000, 0, 99)))

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
