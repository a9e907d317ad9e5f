#!/usr/bin/env python3
"""Deterministic test generator for 'rangesum'.

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

MAXV = 10 ** 9


def fmt(a, queries):
    lines = ["%d %d" % (len(a), len(queries)), " ".join(map(str, a))]
    lines.extend("%d %d" % lr for lr in queries)
    return "\n".join(lines) + "\n"


def random_query(rng, n):
    l = rng.randint(1, n)
    r = rng.randint(1, n)
    return (min(l, r), max(l, r))


def all_pairs(n):
    return [(l, r) for l in range(1, n + 1) for r in range(l, n + 1)]


def build(rng):
    tests = []
    # 01: minimum size, maximum value
    tests.append(([MAXV], [(1, 1)]))
    # 02: single zero, repeated query
    tests.append(([0], [(1, 1)] * 3))
    # 03: every range of a small array
    tests.append(([rng.randint(0, 20) for _ in range(5)], all_pairs(5)))
    # 04: every range, all values maximal (sums up to 1e10)
    tests.append(([MAXV] * 10, all_pairs(10)))
    # 05: random values and ranges
    n = 600
    tests.append(([rng.randint(0, MAXV) for _ in range(n)],
                  [random_query(rng, n) for _ in range(600)]))
    # 06: prefixes, suffixes and single cells
    n = 1000
    a = [rng.randint(0, MAXV) for _ in range(n)]
    qs = []
    for _ in range(1000):
        kind = rng.randint(0, 2)
        x = rng.randint(1, n)
        qs.append((1, x) if kind == 0 else (x, n) if kind == 1 else (x, x))
    tests.append((a, qs))
    # 07: nearly all values maximal, long ranges (sums above 1e12)
    n = 1200
    a = [MAXV if rng.random() < 0.95 else 0 for _ in range(n)]
    qs = [(rng.randint(1, 100), rng.randint(n - 100, n)) for _ in range(1200)]
    tests.append((a, qs))
    # 08: small values, random ranges (sums fit in 32 bits)
    n = 2000
    tests.append(([rng.randint(0, 100) for _ in range(n)],
                  [random_query(rng, n) for _ in range(2000)]))
    # 09: maximal n, many long ranges; the last three cells are 1e9, so the
    #     few ranges that reach the end have sums above 2^31
    n = 200000
    a = [1 if rng.random() < 0.0005 else 0 for _ in range(n)]
    for i in list(range(9)) + list(range(n - 13, n - 3)):
        a[i] = rng.randint(1, 9)  # so that the exact ends of each range matter
    a[-3:] = [MAXV, MAXV, MAXV]
    qs = []
    for _ in range(50000):
        l = rng.randint(1, 9)
        r = n if rng.random() < 0.01 else rng.randint(n - 12, n - 3)
        qs.append((l, r))
    tests.append((a, qs))
    return tests


def main():
    rng = random.Random(77031)
    os.makedirs(SECRET, exist_ok=True)
    for idx, (arr, queries) in enumerate(build(rng), start=1):
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(arr, queries)
        with open(base + ".in", "w", newline="\n") as f:
            f.write(text)
        res = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True)
        with open(base + ".ans", "wb") as f:
            f.write(res.stdout)


if __name__ == "__main__":
    main()
