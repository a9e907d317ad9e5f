#!/usr/bin/env python3
"""Deterministic test generator for "Road Trip".

Writes data/secret/NN.in and computes NN.ans by running the reference solution.
Run from anywhere: python3 generators/gen.py
"""
import os
import random
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
SECRET = os.path.join(ROOT, "data", "secret")
REFERENCE = os.path.join(ROOT, "submissions", "accepted", "reference.py")
MAXN = 200_000
MAXM = 200_000
MAXW = 1_000_000_000

rng = random.Random(7031)


def fmt(n, edges):
    assert 1 <= n <= MAXN and 0 <= len(edges) <= MAXM
    lines = ["%d %d" % (n, len(edges))]
    for u, v, w in edges:
        assert 1 <= u <= n and 1 <= v <= n and 1 <= w <= MAXW
        lines.append("%d %d %d" % (u, v, w))
    return "\n".join(lines) + "\n"


def random_graph(n, m, wlo, whi, nodes=None):
    nodes = nodes if nodes is not None else list(range(1, n + 1))
    return [(rng.choice(nodes), rng.choice(nodes), rng.randint(wlo, whi)) for _ in range(m)]


tests = []

# 01: a single town, no roads
tests.append((1, []))

# 02: two towns, no roads
tests.append((2, []))

# 03: parallel roads (the cheapest is not the last one), a road back and a self-loop
tests.append((2, [(1, 2, 7), (1, 2, 3), (2, 1, 1), (1, 1, 4), (1, 2, 9)]))

# 04: a single town with self-loops only
tests.append((1, [(1, 1, 5), (1, 1, MAXW), (1, 1, 7)]))

# 05: small traps: a cheap road leads the wrong way, and the direct road is not the cheapest
tests.append((6, [(1, 2, 10), (1, 3, 1), (3, 2, 1), (2, 6, 1), (1, 4, 2),
                  (4, 5, 2), (5, 6, 100), (6, 1, 1), (6, 3, 1), (5, 1, 3)]))

# 06: four maximal roads in a row: the answer does not fit in 32 bits
tests.append((5, [(1, 2, MAXW), (2, 3, MAXW), (3, 4, MAXW), (4, 5, MAXW),
                  (5, 1, 1), (3, 1, 2), (4, 2, 3)]))

# 07: small random graph
e = random_graph(8, 20, 1, 20)
e.append((1, rng.randint(2, 7), 15))
e.append((rng.randint(2, 7), 8, 15))
rng.shuffle(e)
tests.append((8, e))

# 08: random graph, weights up to 1e9
n = 1000
e = random_graph(n, 3000, 1, MAXW)
tests.append((n, e))

# 09: town n cannot be reached (it only has outgoing roads)
n = 1000
e = random_graph(n, 1900, 1, MAXW, nodes=list(range(1, n)))
e += [(n, rng.randint(1, n - 1), rng.randint(1, MAXW)) for _ in range(100)]
rng.shuffle(e)
tests.append((n, e))

# 10: a long route of heavy roads, total above 1e12, with useless parallel roads and roads back
n = 1100
order = [1] + rng.sample(range(2, n), n - 2) + [n]
e = []
for i in range(n - 1):
    w = rng.randint(950_000_000, MAXW)
    e.append((order[i], order[i + 1], w))
    if rng.random() < 0.4:
        e.append((order[i], order[i + 1], rng.randint(w, MAXW)))
for _ in range(400):
    k = rng.randint(1, n - 1)
    e.append((order[k], order[rng.randint(0, k - 1)], rng.randint(1, MAXW)))
rng.shuffle(e)
tests.append((n, e))

# 11: many ties: weights 1 and 2 only
n = 1000
e = random_graph(n, 4000, 1, 2)
tests.append((n, e))

# 12: random graph with a hidden cheap route that needs many roads
n = 3000
e = random_graph(n, 4000, 1000, MAXW)
hidden = [1] + rng.sample(range(2, n), 300) + [n]
e += [(hidden[i], hidden[i + 1], rng.randint(1, 1000)) for i in range(len(hidden) - 1)]
rng.shuffle(e)
tests.append((n, e))

# 13: maximal n: one long route through 50000 towns, listed back to front, with three
#     heavy roads on it, short detours next to it, roads going back, and 150000 towns off the route
n = MAXN
K = 50000
route = [1] + rng.sample(range(2, 100000), K)
heavy = set(rng.sample(range(1, K - 1), 3))
chain = []
prefix = [0]
for i in range(K):
    w = rng.randint(900_000_000, MAXW) if i in heavy else rng.randint(1, 9)
    chain.append((route[i], route[i + 1], w))
    prefix.append(prefix[-1] + w)
chain.append((route[K], n, MAXW))
others = []
while len(others) < 1500:                           # detours over a few roads
    i = rng.randint(0, K - 3)
    j = min(K, i + rng.randint(2, 30))
    if any(h in heavy for h in range(i, j)):
        continue
    base = prefix[j] - prefix[i]
    delta = rng.randint(-8, -1) if rng.random() < 0.04 else rng.randint(1, 20)
    others.append((route[i], route[j], max(1, base + delta)))
for _ in range(600):                                # roads going back along the route
    j = rng.randint(1, K)
    i = rng.randint(max(0, j - 5000), j - 1)
    others.append((route[j], route[i], rng.randint(1, 99)))
off = list(range(100000, n))
for _ in range(300):                                # roads from unreachable towns onto the route
    others.append((rng.choice(off), rng.choice(route), rng.randint(1, 99)))
for _ in range(100):                                # roads between unreachable towns
    others.append((rng.choice(off), rng.choice(off), rng.randint(1, 99)))
rng.shuffle(others)
chain.reverse()
e = []
gap = len(chain) // len(others) + 1
oi = 0
for idx, edge in enumerate(chain):
    e.append(edge)
    if idx % gap == 0 and oi < len(others):
        e.append(others[oi])
        oi += 1
e.extend(others[oi:])
tests.append((n, e))


def main():
    os.makedirs(SECRET, exist_ok=True)
    for idx, (n, edges) in enumerate(tests, 1):
        base = os.path.join(SECRET, "%02d" % idx)
        text = fmt(n, edges)
        with open(base + ".in", "w") as f:
            f.write(text)
        ans = subprocess.run([sys.executable, REFERENCE], input=text.encode(),
                             stdout=subprocess.PIPE, check=True).stdout
        with open(base + ".ans", "wb") as f:
            f.write(ans)


if __name__ == "__main__":
    main()
