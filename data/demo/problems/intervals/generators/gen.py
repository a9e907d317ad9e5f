#!/usr/bin/env python3
"""Test generator for "Hall Bookings" (intervals).

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
C = 10 ** 9
MAXN = 200000


def fmt(segs):
    return "%d\n%s\n" % (len(segs), "\n".join("%d %d" % s for s in segs))


def rand_segs(rng, n, lo, hi, maxlen):
    out = []
    for _ in range(n):
        length = min(int(rng.expovariate(1.0 / maxlen)), hi - lo)
        l = rng.randint(lo, hi - length)
        out.append((l, l + length))
    return out


def build():
    rng = random.Random(77031)
    tests = []

    # 01-02: a single booking at either end of the coordinate range
    tests.append([(0, 0)])
    tests.append([(C, C)])
    # 03: identical one-day bookings
    tests.append([(7, 7)] * 4)
    # 04: a chain of bookings that touch end to start
    chain = [(k, k + 1) for k in range(10)]
    rng.shuffle(chain)
    tests.append(chain)
    # 05: one booking spanning everything, short ones inside it
    segs = [(0, C), (1, 2), (4, 6), (10, 10), (20, 30), (31, 31), (500, 900)]
    rng.shuffle(segs)
    tests.append(segs)
    # 06: short bookings that each block two longer disjoint ones
    segs = []
    base = 0
    for _ in range(20):
        segs += [(base, base + 4), (base + 6, base + 10), (base + 4, base + 6)]
        base += 100
    rng.shuffle(segs)
    tests.append(segs)
    # 07: sorted by start, a shorter booking is not always the better one
    segs = []
    base = 3
    for _ in range(30):
        segs += [(base, base + 6), (base + 5, base + 9), (base + 7, base + 8)]
        base += 20
    segs.append((C - 5, C))
    tests.append(segs)
    # 08: random, small coordinates
    tests.append(rand_segs(rng, 1000, 0, 3000, 15))
    # 09: random over the whole coordinate range, mixed lengths
    segs = rand_segs(rng, 3000, 0, C, 300000) + rand_segs(rng, 2000, 0, C, 30000000)
    segs += [(0, rng.randint(0, 1000)) for _ in range(5)] + [(C - rng.randint(0, 1000), C) for _ in range(5)]
    rng.shuffle(segs)
    tests.append(segs)
    # 10: many equal right ends, many bookings starting at 0, touching pairs
    segs = []
    ends = sorted(rng.sample(range(1, 5000), 60))
    for _ in range(2000):
        r = rng.choice(ends)
        l = max(0, r - rng.randint(0, 120)) if rng.random() < 0.9 else 0
        segs.append((l, r))
    for _ in range(200):
        r = rng.choice(ends)
        segs.append((r, r + rng.randint(0, 80)))
    rng.shuffle(segs)
    tests.append(segs)
    # 11: medium size, coordinates up to 6e4
    tests.append(rand_segs(rng, 6000, 0, 60000, 40))
    # 12: maximal n; mostly tiny coordinates (dense overlaps) plus spread-out bookings
    segs = []
    for _ in range(MAXN - 1500):
        l = rng.randint(0, 9)
        segs.append((l, min(9, l + rng.randint(0, 3))))
    segs += rand_segs(rng, 1500, 10, C, 400000)
    rng.shuffle(segs)
    tests.append(segs)
    return tests


def main():
    os.makedirs(SECRET, exist_ok=True)
    for idx, segs in enumerate(build(), start=1):
        assert 1 <= len(segs) <= MAXN
        assert all(0 <= l <= r <= C for l, r in segs)
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(segs)
        with open(base + ".in", "w") as f:
            f.write(text)
        ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
