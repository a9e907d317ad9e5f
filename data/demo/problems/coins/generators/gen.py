#!/usr/bin/env python3
"""Deterministic generator for the secret data of "Exact Change" (coins).

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

MAXA = 100000


def fmt(coins, amounts):
    return "%d %d\n%s\n%s\n" % (len(coins), len(amounts),
                                " ".join(map(str, coins)), " ".join(map(str, amounts)))


def build_tests(rng):
    tests = []

    # 01: smallest possible input
    tests.append(fmt([1], [1]))

    # 02: one coin is larger than every amount
    tests.append(fmt([50000, 7, 3], [3, 6, 7, 10]))

    # 03: coin set where taking the largest coin first is not optimal
    tests.append(fmt([4, 3, 1], [rng.randint(40, 200) for _ in range(60)]))

    # 04: only the coin 1, amount at the upper limit
    tests.append(fmt([1], [MAXA, MAXA - 1, 1]))

    # 05: all coins even, one odd amount hidden among even ones
    am = [2 * rng.randint(5, 2500) for _ in range(30)]
    am[rng.randrange(len(am))] = 2 * rng.randint(5, 2500) + 1
    tests.append(fmt([4, 6, 10], am))

    # 06: {5, 8}: 27 is the largest amount that cannot be paid
    am = [rng.randint(28, 3000) for _ in range(40)] + [27]
    tests.append(fmt([5, 8], am))

    # 07: {6, 9, 20}: every amount >= 44 can be paid
    tests.append(fmt([6, 9, 20], [rng.randint(44, 2000) for _ in range(500)]))

    # 08: k = 100 copies of the same coin
    tests.append(fmt([7] * 100, [7 * rng.randint(1, MAXA // 7) for _ in range(200)]))

    # 09: k = 100 distinct random coins (with 1), many random amounts
    coins = rng.sample(range(2, MAXA + 1), 99) + [1]
    rng.shuffle(coins)
    tests.append(fmt(coins, [rng.randint(1, MAXA) for _ in range(20000)]))

    # 10: maximal q with tiny coins: the total is far above 2^31
    tests.append(fmt([3, 2], [rng.randint(80000, MAXA) for _ in range(100000)]))

    # 11: k = 100 coins without 1; amounts are sums of a few coins
    coins = rng.sample(range(1000, MAXA + 1), 100)
    am = []
    while len(am) < 3000:
        s = sum(rng.choice(coins) for _ in range(rng.randint(1, 6)))
        if s <= MAXA:
            am.append(s)
    tests.append(fmt(coins, am))

    # 12: k = 100 small coins, every amount at the upper limit
    coins = rng.sample(range(2, 301), 100)
    tests.append(fmt(coins, [MAXA] * 1000))

    # 13: every amount equals one of the coins
    coins = rng.sample(range(1, MAXA + 1), 50)
    am = coins[:]
    rng.shuffle(am)
    tests.append(fmt(coins, am))

    return tests


def main():
    rng = random.Random(20240603)
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
