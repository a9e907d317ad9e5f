"""The graded set's shape on a generated corpus (issue 36's done-when): edit size does not grow with the ceiling,
every ceiling 0..5 holds 1/6 of the set, and no rule holds more than a quarter of its ceiling unless the table says
why (core/graded/verify.py)."""

from __future__ import annotations

import random

import polars as pl
import pytest

from cojudge_assets.core.graded.verify import INTENDED, ceiling_balance, graded_programs, rule_yield, shape
from cojudge_assets.core.perturbation.verify import mutation_seeds
from cojudge_tests.conftest import write_problem

pytestmark = pytest.mark.slow  # about 150 programs compiled and run

# Sum of n integers, their maximum ("empty" when n = 0), and how many exceed 10: four seeds written differently.
SEEDS = {
    "c1": (
        "c",
        """#include <stdio.h>
int main(void) {
    int n;
    long long total = 0;
    int best = 0, big = 0;
    if (scanf("%d", &n) != 1) return 0;
    if (n == 0) {
        printf("0\\nempty\\n0\\n");
        return 0;
    }
    for (int i = 0; i < n; i++) {
        int x;
        scanf("%d", &x);
        total = total + x;
        if (i == 0 || x > best) best = x;
        if (x > 10) big++;
    }
    printf("%lld\\n", total);
    printf("%d\\n", best);
    printf("%d\\n", big);
    return 0;
}
""",
    ),
    "c2": (
        "c",
        """#include <stdio.h>
#define LIMIT 10
int larger(int a, int b) {
    return a > b ? a : b;
}
int main(void) {
    int count, value, index = 0, above = 0, maximum = -2000000000;
    long long sum = 0;
    scanf("%d", &count);
    while (index < count) {
        scanf("%d", &value);
        sum += value;
        maximum = larger(maximum, value);
        if (value > LIMIT && value != 0) above += 1;
        index++;
    }
    printf("%lld\\n", sum);
    if (count > 0) printf("%d\\n", maximum);
    else printf("empty\\n");
    printf("%d\\n", above);
    return 0;
}
""",
    ),
    "cpp": (
        "cpp",
        """#include <iostream>
#include <algorithm>
using namespace std;
int main() {
    int n;
    cin >> n;
    long long s = 0;
    int mx = 0, cnt = 0;
    for (int i = 0; i < n; ++i) {
        int x;
        cin >> x;
        s += x;
        if (i == 0) mx = x;
        else mx = max(mx, x);
        if (x > 10) {
            cnt = cnt + 1;
        }
    }
    cout << s << "\\n";
    if (n == 0) {
        cout << "empty" << "\\n";
    } else {
        cout << mx << "\\n";
    }
    cout << cnt << "\\n";
    return 0;
}
""",
    ),
    "c3": (
        "c",
        """#include <stdio.h>
long long sum_of(int *values, int count) {
    long long s = 0;
    for (int i = 0; i < count; i++) s += values[i];
    return s;
}
int main(void) {
    int n;
    int values[100];
    scanf("%d", &n);
    for (int i = 0; i < n; i++) {
        scanf("%d", &values[i]);
    }
    printf("%lld\\n", sum_of(values, n));
    if (n < 1) {
        printf("empty\\n");
    } else {
        int top = values[0];
        for (int i = 1; i < n; i++) {
            if (values[i] > top) {
                top = values[i];
            }
        }
        printf("%d\\n", top);
    }
    int over = 0;
    for (int i = 0; i < n; i++) {
        if (values[i] > 10) over = over + 1;
    }
    printf("%d\\n", over);
    return 0;
}
""",
    ),
}


def _answer(values: list[int]) -> str:
    top = str(max(values)) if values else "empty"
    return f"{sum(values)}\n{top}\n{sum(v > 10 for v in values)}\n"


@pytest.fixture(scope="module")
def corpus(judge, tmp_path_factory):
    rng = random.Random(36)
    cases = [[], [5], [-3, -7, -1], [20, 30, 1], [2_000_000_000, 2_000_000_000], [11, 10, 9, 12]]
    cases += [[rng.randint(-50, 50) for _ in range(rng.randint(2, 9))] for _ in range(6)]
    tests = {f"secret/{i:02d}": (f"{len(v)}\n{' '.join(map(str, v))}\n", _answer(v)) for i, v in enumerate(cases)}
    tests["sample/1"] = ("2\n3 4\n", _answer([3, 4]))
    package = write_problem(tmp_path_factory.mktemp("shape"), tests, name="stats")
    attempts = pl.DataFrame(
        [
            {
                "attempt_uid": uid,
                "participant": uid,
                "problem_id": "stats",
                "language": language,
                "language_label": language.upper(),
                "code": code,
                "accepted": True,
            }
            for uid, (language, code) in SEEDS.items()
        ]
    )
    seeds = mutation_seeds(attempts, {"stats": package}, judge)
    assert seeds["usable"].all(), seeds  # every seed passes every test
    return graded_programs(seeds, {"stats": package}, judge)


def test_every_ceiling_holds_a_sixth_and_edit_size_does_not_grow_with_the_ceiling(corpus):
    figures = shape(corpus)
    balance = ceiling_balance(corpus)
    assert set(balance["ceiling"].to_list()) == set(INTENDED)
    assert figures["programs"] >= 2 * len(INTENDED), balance  # at least two programs a ceiling
    assert figures["max_share_gap"] <= 0.05
    assert figures["spearman_edit_size_ceiling"] <= 0.1
    graded = corpus.filter(pl.col("graded"))
    assert graded["accepted"].all() and graded["edit_size"].is_not_null().all()
    assert (graded.filter(pl.col("ceiling") <= 2)["repair_tokens"] > 0).all()


def test_no_rule_holds_more_than_a_quarter_of_its_ceiling_or_the_balance_says_why(corpus):
    yields = rule_yield(corpus)
    notes = dict(ceiling_balance(corpus).select("ceiling", "note").iter_rows())
    for ceiling, rows in yields.group_by("ceiling"):
        top = rows["ceiling_share"].max()
        if top is not None and top > 0.25:
            assert notes[ceiling[0]] is not None and "holds" in notes[ceiling[0]], (ceiling, rows)
        else:
            assert notes[ceiling[0]] is None
