"""Graded programs: candidates, verification by execution, balance (core/graded/verify.py)."""

from __future__ import annotations

import polars as pl
import pytest

from cojudge_assets.core.graded.rules import BY_NAME, RULES
from cojudge_assets.core.graded.verify import (
    INTENDED,
    PROGRAM_SCHEMA,
    _classify,
    balance,
    candidates,
    ceiling_balance,
    graded_programs,
    rule_yield,
    verify,
)
from cojudge_assets.core.perturbation.verify import mutation_seeds
from cojudge_tests.conftest import write_problem

SEED = """#include <stdio.h>
#define TWO 2
int main(void) {
    long long a, b, total = 0;
    scanf("%lld %lld", &a, &b);
    for (int i = 0; i < TWO; i++) {
        if (i == 0) total += a;
        else total += b;
    }
    if (total > 1000 && a > 0) printf("big ");
    printf("%lld\\n", total);
    return 0;
}
"""


@pytest.fixture(scope="module")
def problem(tmp_path_factory):
    tests = {f"secret/{i}": (f"{i} {i + 1}\n", f"{2 * i + 1}\n") for i in range(1, 7)}
    tests["secret/9"] = ("3000 4000\n", "big 7000\n")
    return write_problem(tmp_path_factory.mktemp("graded"), tests, name="sum")


@pytest.fixture(scope="module")
def seeds(judge, problem):
    attempts = pl.DataFrame(
        [
            {
                "attempt_uid": "s1",
                "participant": "p",
                "problem_id": "sum",
                "language": "c",
                "language_label": "C",
                "code": SEED,
                "accepted": True,
            }
        ]
    )
    return mutation_seeds(attempts, {"sum": problem}, judge)


def test_the_cut_between_minor_and_major_is_half_the_tests():
    assert _classify(failed=1, passed=9, total=10) == "minor"
    assert _classify(failed=5, passed=5, total=10) == "minor"  # half: still some, not most
    assert _classify(failed=6, passed=0, total=10) == "major"  # decided before the other four run
    assert _classify(failed=1, passed=3, total=10) is None  # not decided yet
    assert _classify(failed=0, passed=10, total=10) == "preserved"


def test_inapplicable_rules_are_counted_as_skips_and_chains_keep_the_lowest_ceiling(seeds):
    programs, skips = candidates(seeds)
    applied = {p["rule"] for p in programs}
    assert {s["rule"] for s in skips} == {r.name for r in RULES} - applied
    assert "R1_REMOVE_BASE_CASE" in {s["rule"] for s in skips}  # nothing recursive here
    for p in programs:
        ceilings = [BY_NAME[r].ceiling for r in p["rules"]]
        assert p["ceiling"] == min(ceilings) == BY_NAME[p["rule"]].ceiling
    assert any(p["companion"] for p in programs) and any(not p["companion"] for p in programs)
    again, _ = candidates(seeds)
    assert [p["code"] for p in again] == [p["code"] for p in programs]  # deterministic


def test_every_program_is_verified_and_only_the_intended_effect_is_accepted(judge, problem, seeds):
    programs, skips = candidates(seeds)
    table = verify(seeds, programs, {"sum": problem}, judge, lazy=False)
    assert len(table) == len(programs) and table["effect"].is_not_null().all()
    for row in table.iter_rows(named=True):
        assert row["accepted"] == (row["effect"] == INTENDED[row["ceiling"]]), row["program_uid"]
        assert row["accepted"] == (row["reason"] is None)
    preserving = table.filter((pl.col("ceiling") >= 3) & pl.col("accepted"))
    assert len(preserving) >= 5
    # skipping the second summand (b != 0 in every test) fails them all: major, so rejected as a minor bug
    shortened = table.filter(pl.col("rule") == "R2_LOOP_BOUND_MINUS_ONE").row(0, named=True)
    assert shortened["effect"] == "major" and not shortened["accepted"]
    assert "major instead of minor" in shortened["reason"]
    # the rule's middle site is one of the three ifs; whichever it is, more than half of the tests fail
    negated = table.filter(pl.col("rule") == "R1_NEGATE_CONDITION").row(0, named=True)
    assert negated["failed"] > 0.5 * negated["tests"]
    graded = table.filter(pl.col("graded"))
    assert graded.group_by("ceiling").len()["len"].n_unique() <= 1  # balanced (possibly empty)
    full = graded_programs(seeds, {"sum": problem}, judge)
    assert full.filter(pl.col("effect") != "skipped")["program_uid"].equals(table["program_uid"])
    yields = rule_yield(full)
    ran = full.filter(~pl.col("effect").is_in(["skipped", "not_run"]))
    assert yields["applied"].sum() == len(ran) and yields["skipped"].sum() == len(skips)
    assert len(yields) == len(RULES)
    assert (yields["applied"] + yields["not_run"] + yields["skipped"] == 1).all()  # one seed: one row per rule


def test_lazy_verification_runs_a_plentiful_ceiling_only_until_the_balance_is_met(judge, problem, seeds):
    programs, _ = candidates(seeds)
    lazy = verify(seeds, programs, {"sum": problem}, judge)
    full = verify(seeds, programs, {"sum": problem}, judge, lazy=False)
    assert (full["effect"] != "not_run").all()
    assert lazy.filter(pl.col("graded")).equals(full.filter(pl.col("graded")))  # the same graded set
    ran = lazy.filter(pl.col("effect") != "not_run")
    assert len(ran) < len(full)  # the plentiful ceilings stopped early
    assert (lazy.filter(pl.col("effect") == "not_run")["reason"].str.contains("balance")).all()


def _table(counts: dict[int, int]) -> pl.DataFrame:
    rows = [
        {"program_uid": f"s{i % 4}~{c}~{i}", "seed_uid": f"s{i % 4}", "ceiling": c, "accepted": True, "graded": False}
        for c, n in counts.items()
        for i in range(n)
    ]
    return pl.DataFrame(rows).with_columns(
        [pl.lit(None, dtype=d).alias(k) for k, d in PROGRAM_SCHEMA.items() if k not in rows[0]]
    )


def test_balance_keeps_the_scarcest_ceilings_count_for_every_ceiling_spread_over_seeds():
    table = balance(_table({5: 30, 4: 12, 3: 8, 2: 9, 1: 20}))
    shares = ceiling_balance(table)
    assert shares["graded"].to_list() == [8] * 5 and shares["share"].to_list() == [0.2] * 5
    top = table.filter(pl.col("graded") & (pl.col("ceiling") == 5))
    assert top["seed_uid"].value_counts()["count"].to_list() == [2] * 4  # 8 over 4 seeds: two each
