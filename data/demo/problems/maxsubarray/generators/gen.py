#!/usr/bin/env python3
"""Test generator for "Best Stretch" (maxsubarray).

Writes data/secret/NN.in deterministically (fixed seed) and the matching
NN.ans files by running submissions/accepted/reference.py.
Run from anywhere:  python3 generators/gen.py
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = os.path.join(ROOT, "data", "secret")
REFERENCE = os.path.join(ROOT, "submissions", "accepted", "reference.py")
BIG = 10 ** 9
MAXN = 200000


def fmt(a):
    return "%d\n%s\n" % (len(a), " ".join(map(str, a)))


def build():
    rng = random.Random(20240611)
    tests = []

    # 01-02: a single element
    tests.append([-7])
    tests.append([BIG])
    # 03: all equal, all at the lower bound
    tests.append([-BIG] * 5)
    # 04: all zero
    tests.append([0] * 6)
    # 05: small mixed
    tests.append([rng.randint(-20, 20) for _ in range(10)])
    # 06: alternating huge values, best stretch is the whole array
    tests.append([BIG if i % 2 == 0 else -1 for i in range(9)])
    # 07: all negative, n = 1000
    tests.append([rng.randint(-BIG, -1) for _ in range(1000)])
    # 08: random over the full value range
    tests.append([rng.randint(-BIG, BIG) for _ in range(1000)])
    # 09: all positive and large: the answer is the total (~3e12)
    tests.append([rng.randint(BIG - 1000, BIG) for _ in range(3000)])
    # 10: noisy prefix, strongly positive suffix (best stretch ends at the last element)
    a = [rng.randint(-BIG, BIG // 2) for _ in range(1400)]
    a += [rng.randint(-BIG // 4, BIG) for _ in range(600)]
    tests.append(a)
    # 11: medium size, moderate values
    tests.append([rng.randint(-100000, 100000) for _ in range(20000)])
    # 12: maximal n, small values plus scattered huge ones (answer well above 2^31)
    a = [rng.randint(-99, 99) for _ in range(MAXN)]
    for _ in range(150):
        a[rng.randrange(MAXN)] = rng.randint(BIG // 2, BIG)
    for _ in range(150):
        a[rng.randrange(MAXN)] = -rng.randint(BIG // 4, BIG // 2)
    tests.append(a)
    return tests


def main():
    os.makedirs(SECRET, exist_ok=True)
    for idx, a in enumerate(build(), start=1):
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(a)
        with open(base + ".in", "w") as f:
            f.write(text)
        ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
