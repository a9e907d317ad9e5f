#!/usr/bin/env python3
"""Deterministic generator for the secret data of "Arcade Routes" (gridpaths).

Writes data/secret/NN.in and computes NN.ans by running submissions/accepted/reference.py.
Run from anywhere: python3 generators/gen.py
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = os.path.join(ROOT, "data", "secret")
REFERENCE = os.path.join(ROOT, "submissions", "accepted", "reference.py")

DIGITS = "23456789"


def fmt(grid):
    return "%d %d\n%s\n" % (len(grid), len(grid[0]), "\n".join("".join(row) for row in grid))


def random_grid(rng, r, c, p_block, p_digit):
    g = []
    for _ in range(r):
        row = []
        for _ in range(c):
            x = rng.random()
            if x < p_block:
                row.append("#")
            elif x < p_block + p_digit:
                row.append(rng.choice(DIGITS))
            else:
                row.append(".")
        g.append(row)
    return g


def carve_path(rng, g):
    """Clear one random monotone path so that at least one route exists."""
    r, c = len(g), len(g[0])
    i = j = 0
    while True:
        if g[i][j] == "#":
            g[i][j] = "."
        if i == r - 1 and j == c - 1:
            break
        if i == r - 1:
            j += 1
        elif j == c - 1:
            i += 1
        elif rng.randrange(r + c) < r:
            i += 1
        else:
            j += 1


def build_tests(rng):
    tests = []

    # 01-03: single cell
    tests.append(fmt([["."]]))
    tests.append(fmt([["7"]]))
    tests.append(fmt([["#"]]))

    # 04: start cell blocked
    tests.append(fmt([list("#.3"), list("..."), list(".5.")]))

    # 05: target cell blocked
    tests.append(fmt([list("...."), list(".2.."), list("..9."), list("...#")]))

    # 06: blocked cells in the first row and in the first column
    tests.append(fmt([list("..#..."), list(".3...."), list("#..2.."),
                      list("..#..."), list("...4.."), list(".....5")]))

    # 07: 24 x 24, few obstacles: more than 10^11 monotone paths
    g = random_grid(rng, 24, 24, 0.03, 0.25)
    carve_path(rng, g)
    tests.append(fmt(g))

    # 08: a single row
    g = random_grid(rng, 1, 20000, 0.0, 0.2)
    tests.append(fmt(g))

    # 09: a single column
    g = random_grid(rng, 12000, 1, 0.0, 0.2)
    tests.append(fmt(g))

    # 10: medium random grid
    g = random_grid(rng, 160, 200, 0.15, 0.05)
    carve_path(rng, g)
    tests.append(fmt(g))

    # 11: a wall along an anti-diagonal: no route at all
    g = random_grid(rng, 150, 200, 0.05, 0.05)
    for i in range(150):
        g[i][199 - i] = "#"
    tests.append(fmt(g))

    # 12: 2 x 2, every cell a 9
    tests.append(fmt([list("99"), list("99")]))

    # 13: maximal grid 1000 x 1000
    g = random_grid(rng, 1000, 1000, 0.08, 0.03)
    carve_path(rng, g)
    tests.append(fmt(g))

    return tests


def main():
    rng = random.Random(7031)
    os.makedirs(SECRET, exist_ok=True)
    for i, text in enumerate(build_tests(rng), 1):
        base = os.path.join(SECRET, "%02d" % i)
        with open(base + ".in", "w") as f:
            f.write(text)
        ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
