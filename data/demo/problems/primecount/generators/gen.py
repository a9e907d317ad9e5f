#!/usr/bin/env python3
"""Deterministic test generator for "Prime Counting".

Writes data/secret/NN.in and computes NN.ans by running the reference solution.
Run from anywhere: python3 generators/gen.py
"""
import os
import random
import subprocess
import sys
from math import isqrt

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = os.path.join(ROOT, "data", "secret")
REFERENCE = os.path.join(ROOT, "submissions", "accepted", "reference.py")
LIMIT = 5_000_000
MAXQ = 30_000

rng = random.Random(20240517)


def small_sieve(n):
    s = bytearray([1]) * (n + 1)
    s[0] = s[1] = 0
    for i in range(2, isqrt(n) + 1):
        if s[i]:
            s[i * i::i] = bytes(len(range(i * i, n + 1, i)))
    return s


IS_PRIME = small_sieve(LIMIT)


def fmt(queries):
    assert 1 <= len(queries) <= MAXQ
    lines = [str(len(queries))]
    for l, r in queries:
        assert 1 <= l <= r <= LIMIT
        lines.append("%d %d" % (l, r))
    return "\n".join(lines) + "\n"


def rand_pair(lo, hi):
    a = rng.randint(lo, hi)
    b = rng.randint(lo, hi)
    return (min(a, b), max(a, b))


def random_prime(lo, hi):
    while True:
        x = rng.randint(lo, hi)
        if IS_PRIME[x]:
            return x


def random_composite(lo, hi):
    while True:
        x = rng.randint(lo, hi)
        if not IS_PRIME[x]:
            return x


tests = []

# 01: smallest possible input, the number 1 alone
tests.append([(1, 1)])

# 02: tiny hand-made queries around 1, 2, 3 and small primes
tests.append([(1, 2), (2, 2), (2, 3), (3, 3), (4, 4), (1, 10), (7, 7), (8, 10),
              (11, 13), (1, 1), (13, 13), (14, 17), (24, 28), (2, 100), (1, 3)])

# 03: the top of the range (4999999 is prime, 5000000 is not)
tests.append([(5000000, 5000000), (4999999, 5000000), (4999999, 4999999),
              (1, 5000000), (4999963, 4999963), (4999950, 4999998),
              (2, 5000000), (4999964, 4999998), (4999000, 5000000)])

# 04: the largest value is the square of a prime
tests.append([(1, 49), (49, 49), (25, 25), (9, 9), (4, 4), (40, 49), (1, 25),
              (20, 30), (47, 49), (48, 49)])

# 05: random small values
tests.append([rand_pair(1, 1000) for _ in range(1000)])

# 06: random values up to 100000
tests.append([rand_pair(1, 100000) for _ in range(2000)])

# 07: short ranges anywhere in [1, 5000000]
q = []
for _ in range(3000):
    l = rng.randint(1, LIMIT)
    r = min(LIMIT, l + rng.randint(0, 1000))
    q.append((l, r))
tests.append(q)

# 08: single numbers (l = r), half of them prime
q = []
for i in range(3000):
    x = random_prime(1, LIMIT) if i % 2 == 0 else random_composite(1, LIMIT)
    q.append((x, x))
tests.append(q)

# 09: both ends prime
q = []
for _ in range(5000):
    a = random_prime(2, LIMIT)
    b = random_prime(2, LIMIT)
    q.append((min(a, b), max(a, b)))
tests.append(q)

# 10: maximal test, long random ranges
q = [(1, LIMIT), (1, 1), (LIMIT, LIMIT), (2, LIMIT), (4999999, 4999999)]
while len(q) < MAXQ:
    q.append(rand_pair(1, LIMIT))
rng.shuffle(q)
tests.append(q)


def main():
    os.makedirs(SECRET, exist_ok=True)
    for idx, queries in enumerate(tests, 1):
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(queries)
        with open(base + ".in", "w") as f:
            f.write(text)
        ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
