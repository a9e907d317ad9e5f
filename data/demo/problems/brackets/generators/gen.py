#!/usr/bin/env python3
"""Generates data/secret for 'brackets'. Deterministic: python3 generators/gen.py"""
import os
import random
import subprocess
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
SECRET = os.path.join(ROOT, "data", "secret")
REF = os.path.join(ROOT, "submissions", "accepted", "reference.py")

rng = random.Random(20240611)


def walk(n, p_open):
    return "".join("(" if rng.random() < p_open else ")" for _ in range(n))


def balanced(n):
    """random balanced string of even length n"""
    out = []
    depth = 0
    for i in range(n):
        left = n - i
        if depth == 0:
            c = "("
        elif depth == left:
            c = ")"
        else:
            c = "(" if rng.random() < 0.5 else ")"
        depth += 1 if c == "(" else -1
        out.append(c)
    return "".join(out)


def blocks_equal(k, length):
    """k balanced blocks of the same length with different shapes, separated by junk"""
    parts = []
    for _ in range(k):
        parts.append(balanced(length))
        parts.append(rng.choice([")", ")", "))", ")))"]))
    return "".join(parts)


def case_drift_small():
    s = walk(300, 0.6)
    return s


def case_max():
    # long run of openers, then an upward drifting walk with planted balanced pieces
    parts = ["(" * 100000]
    while sum(map(len, parts)) < 500000 - 3000:
        parts.append(walk(rng.randint(2000, 9000), 0.53))
        if rng.random() < 0.3:
            parts.append(balanced(2 * rng.randint(200, 1400)))
    s = "".join(parts)
    s = s + walk(500000 - len(s), 0.55)
    return s[:500000]


def case_planted():
    parts = []
    for _ in range(12):
        parts.append(walk(rng.randint(500, 1500), 0.5))
        parts.append(")" * 60)
        parts.append(balanced(1800))
        parts.append(")" * 60)
    return "".join(parts)


def case_sides():
    # blocks closed off on the left by a stray ')' and blocks closed off on the right by a stray '('
    left = "".join(")" + balanced(500) for _ in range(3)) + ")"
    right = "".join("(" + balanced(500) for _ in range(5)) + "("
    return left + right


def build():
    tests = []
    tests.append("(")
    tests.append(")")
    tests.append("()")
    tests.append(")" * 400 + "(" * 600)
    tests.append("()" * 25000)
    tests.append(case_drift_small())
    tests.append(blocks_equal(8000, 4))
    tests.append("(" * 50000 + ")" * 50000)
    tests.append(walk(100000, 0.5))
    tests.append(case_max())
    tests.append(blocks_equal(300, 60) + balanced(60))
    tests.append("(" * 49999 + ")")
    tests.append(case_planted())
    tests.append(case_sides())
    return tests


def main():
    os.makedirs(SECRET, exist_ok=True)
    for name in os.listdir(SECRET):
        os.remove(os.path.join(SECRET, name))
    for idx, s in enumerate(build(), start=1):
        inp = "%d\n%s\n" % (len(s), s)
        base = os.path.join(SECRET, "%02d" % idx)
        with open(base + ".in", "w") as f:
            f.write(inp)
        ans = subprocess.run([sys.executable, REF], input=inp.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
