#!/usr/bin/env python3
"""Deterministic test generator for 'inversions'.

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


def fmt(a):
    return "%d\n%s\n" % (len(a), " ".join(map(str, a)))


def build(rng):
    tests = []
    # 01: minimum size, largest value
    tests.append([MAXV])
    # 02: two equal elements (not an inversion)
    tests.append([7, 7])
    # 03: two elements in decreasing order
    tests.append([MAXV, 1])
    # 04: tiny random with repeats
    tests.append([rng.randint(1, 5) for _ in range(10)])
    # 05: all equal
    tests.append([123456789] * 1000)
    # 06: non-decreasing with many repeats -> 0
    tests.append(sorted(rng.randint(1, 50) for _ in range(1000)))
    # 07: strictly decreasing, large values
    tests.append([MAXV - 3 * i for i in range(2000)])
    # 08: random, full value range
    tests.append([rng.randint(1, MAXV) for _ in range(2000)])
    # 09: random, very few distinct values
    tests.append([rng.randint(1, 10) for _ in range(5000)])
    # 10: non-increasing blocks of equal values
    blocks = []
    v = MAXV
    while len(blocks) < 3000:
        v -= rng.randint(1, 1000)
        blocks.extend([v] * rng.randint(1, 40))
    tests.append(blocks[:3000])
    # 11: medium random, full value range
    tests.append([rng.randint(1, MAXV) for _ in range(20000)])
    # 12: maximal n, random values with repeats (answer about 1e10)
    tests.append([rng.randint(1, 1000) for _ in range(200000)])
    return tests


def main():
    rng = random.Random(20240611)
    os.makedirs(SECRET, exist_ok=True)
    for idx, arr in enumerate(build(rng), start=1):
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(arr)
        with open(base + ".in", "w", newline="\n") as f:
            f.write(text)
        res = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True)
        with open(base + ".ans", "wb") as f:
            f.write(res.stdout)


if __name__ == "__main__":
    main()
