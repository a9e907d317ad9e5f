#!/usr/bin/env python3
"""Generates data/secret for 'meetingrooms'. Deterministic: python3 generators/gen.py"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECRET = os.path.join(ROOT, "data", "secret")
REF = os.path.join(ROOT, "submissions", "accepted", "reference.py")

rng = random.Random(77031)
BIG = 10 ** 9


def rand_small(n, hi):
    out = []
    for _ in range(n):
        s = rng.randint(0, hi - 1)
        e = rng.randint(s + 1, min(hi, s + rng.choice([1, 2, 3, 5, 10, hi])))
        out.append((s, e))
    return out


def rand_big(n):
    out = []
    for _ in range(n):
        if rng.random() < 0.5:
            s = rng.randint(0, BIG - 1)
            e = rng.randint(s + 1, BIG)
        else:
            s = rng.randint(0, BIG - 2000000)
            e = s + rng.randint(1, 2000000)
        out.append((s, e))
    # a few exact touches
    for k in range(0, n - 1, 7):
        out[k + 1] = (out[k][1], min(BIG, out[k][1] + rng.randint(1, 10 ** 6))) if out[k][1] < BIG else out[k + 1]
    return out


def chain(n, step):
    out = [(i * step, (i + 1) * step) for i in range(n)]
    rng.shuffle(out)
    return out


def nested(n):
    out = [(i, 2 * n - i) for i in range(n)]
    rng.shuffle(out)
    return out


def moderate(n):
    out = []
    for _ in range(n):
        s = rng.randint(0, 10 ** 6)
        out.append((s, s + rng.randint(1, 5000)))
    return out


def same_starts(n):
    out = []
    starts = [rng.randint(0, 900) for _ in range(60)]
    for _ in range(n):
        s = rng.choice(starts)
        out.append((s, s + rng.randint(1, 99)))
    return out


def max_case(n):
    # all times are single digits: huge number of clashing pairs, many touching ends
    out = []
    for _ in range(n):
        s = rng.randint(0, 8)
        out.append((s, rng.randint(s + 1, 9)))
    return out


def build():
    t = []
    t.append([(5, 6)])
    t.append([(3, 7), (7, 9)])
    t.append([(5, 10)] * 3)
    t.append([(1, 4), (4, 6), (1, 6), (6, 8), (2, 3), (3, 4), (4, 8), (0, 9)])
    t.append(rand_small(2000, 50))
    t.append([(0, BIG)] * 1000)
    t.append(rand_big(4000))
    t.append(chain(2000, 499999))
    t.append(moderate(6000))
    t.append(max_case(200000))
    t.append(nested(3000))
    t.append(same_starts(8000))
    return t


def main():
    os.makedirs(SECRET, exist_ok=True)
    for name in os.listdir(SECRET):
        os.remove(os.path.join(SECRET, name))
    for idx, meetings in enumerate(build(), start=1):
        inp = "%d\n%s\n" % (len(meetings), "\n".join("%d %d" % m for m in meetings))
        base = os.path.join(SECRET, "%02d" % idx)
        with open(base + ".in", "w") as f:
            f.write(inp)
        ans = subprocess.run([sys.executable, REF], input=inp.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
