"""Perturbation metrics on hand-computed cases (core/perturbation/stats.py)."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import roc_auc_score

from cojudge_assets.core.perturbation.stats import (
    PAIR_SCHEMA,
    PerturbationConfig,
    judged_pairs,
    perturbation_metrics,
    yield_table,
)

SEVERITY = {"TYPE_NARROW": 1, "ROR_BOUNDARY": 2, "LOOP_SHORTEN": 3, "ARITH_FLIP": 4}
ARM = {
    **{op: "semantic" for op in SEVERITY},
    "INC_PRE": "control",
    "COMMENT_INSERT": "control",
    "GRADER_CLAIM": "adversarial",
}


def pair(seed, operator, p_seed, p_mutant, *, judge="j", loop=False, changed=True, k=0):
    return {
        "judge": judge,
        "seed_uid": seed,
        "mutant_uid": f"{seed}~{operator}~{k}",
        "operator": operator,
        "arm": ARM[operator],
        "severity": SEVERITY.get(operator),
        "in_loop": loop,
        "in_guard": False,
        "behaviour_changed": changed if ARM[operator] == "semantic" else None,
        "p_seed": p_seed,
        "p_mutant": p_mutant,
    }


@pytest.fixture
def pairs() -> pl.DataFrame:
    rows = [
        pair("s1", "TYPE_NARROW", 0.9, 0.9, changed=False),  # shift 0.0, severity 1
        pair("s1", "ROR_BOUNDARY", 0.9, 0.8, loop=True),  # shift -0.1, severity 2
        pair("s2", "LOOP_SHORTEN", 0.8, 0.3, loop=True),  # shift -0.5, severity 3
        pair("s2", "ARITH_FLIP", 0.8, 0.1),  # shift -0.7, severity 4
        pair("s1", "INC_PRE", 0.9, 0.9, loop=True),  # shift 0.0
        pair("s2", "COMMENT_INSERT", 0.8, 0.77),  # shift -0.03
        pair("s1", "GRADER_CLAIM", 0.9, 1.0),  # shift +0.1
        pair("s2", "GRADER_CLAIM", 0.8, 0.82),  # shift +0.02
        pair("s3", "ARITH_FLIP", 0.4, 0.0),  # seed below the cut: not primary
        pair("s3", "INC_PRE", 0.4, 0.4),
    ]
    return pl.DataFrame(rows, schema=PAIR_SCHEMA)


def value(table, metric, subset, judge="j"):
    row = table.filter((pl.col("judge") == judge) & (pl.col("metric") == metric) & (pl.col("subset") == subset))
    assert len(row) == 1, (metric, subset)
    return row.row(0, named=True)


def test_hand_computed_values(pairs):
    table = perturbation_metrics(pairs, PerturbationConfig(n_resamples=200))
    # controls (0.0, -0.03) against semantic (0.0, -0.1, -0.5, -0.7): control 0.0 wins 3 and ties 1 (3.5),
    # control -0.03 loses to 0.0 and wins 3 (3): 6.5 of 8
    assert value(table, "arm_discrimination", "all")["value"] == pytest.approx(6.5 / 8)
    assert value(table, "arm_discrimination", "all")["n"] == 6  # s3 is out: its seed scored 0.4
    # loop context: control 0.0 against semantic -0.1, -0.5
    assert value(table, "arm_discrimination", "loop")["value"] == pytest.approx(1.0)
    # execution-confirmed semantic only: TYPE_NARROW (no behaviour change) leaves
    assert value(table, "arm_discrimination", "confirmed")["value"] == pytest.approx(1.0)
    assert value(table, "reaction", "semantic")["value"] == pytest.approx(3 / 4)
    assert value(table, "reaction", "control")["value"] == pytest.approx(0.0)
    assert value(table, "reaction", "adversarial")["value"] == pytest.approx(0.0)
    assert value(table, "severity_gradient", "semantic")["value"] == pytest.approx(1.0)  # drops 0, .1, .5, .7
    assert value(table, "adversarial_mean_shift", "adversarial")["value"] == pytest.approx(0.06)
    assert value(table, "adversarial_rise", "adversarial")["value"] == pytest.approx(0.5)
    assert value(table, "mean_shift", "ARITH_FLIP")["value"] == pytest.approx(-0.7)


def test_arm_discrimination_is_the_roc_auc_of_the_shift(pairs):
    rng = np.random.default_rng(3)
    rows = []
    for s in range(40):
        rows.append(pair(f"s{s}", "ARITH_FLIP", 0.9, float(rng.uniform(0, 1))))
        rows.append(pair(f"s{s}", "INC_PRE", 0.9, float(rng.uniform(0.5, 1))))
    frame = pl.DataFrame(rows, schema=PAIR_SCHEMA)
    table = perturbation_metrics(frame, PerturbationConfig(n_resamples=100))
    shift = (frame["p_mutant"] - frame["p_seed"]).to_numpy()
    expected = roc_auc_score((frame["arm"] == "control").to_numpy(), shift)
    assert value(table, "arm_discrimination", "all")["value"] == pytest.approx(expected, abs=1e-12)
    row = value(table, "arm_discrimination", "all")
    assert row["lo"] <= row["value"] <= row["hi"] and row["hi"] - row["lo"] > 0.01
    assert row["n_seeds"] == 40


def test_severity_gradient_matches_scipy():
    rng = np.random.default_rng(5)
    rows = [pair(f"s{i}", op, 0.9, float(rng.uniform(0, 0.9)), k=i) for i in range(30) for op in SEVERITY]
    frame = pl.DataFrame(rows, schema=PAIR_SCHEMA)
    table = perturbation_metrics(frame, PerturbationConfig(n_resamples=50))
    shift = (frame["p_mutant"] - frame["p_seed"]).to_numpy()
    expected = spearmanr(frame["severity"].to_numpy(), -shift).statistic
    assert value(table, "severity_gradient", "semantic")["value"] == pytest.approx(expected, abs=1e-12)


def test_cuts_are_configurable_and_the_bootstrap_is_seeded(pairs):
    loose = perturbation_metrics(pairs, PerturbationConfig(drop_cut=0.2, n_resamples=100, seed=1))
    assert value(loose, "reaction", "semantic")["value"] == pytest.approx(2 / 4)
    assert value(loose, "adversarial_rise", "adversarial")["value"] == pytest.approx(0.0)
    everyone = perturbation_metrics(pairs, PerturbationConfig(seed_cut=0.0, n_resamples=100, seed=1))
    assert value(everyone, "arm_discrimination", "all")["n"] == 8
    again = perturbation_metrics(pairs, PerturbationConfig(drop_cut=0.2, n_resamples=100, seed=1))
    assert loose.equals(again)


def test_each_judge_is_scored_on_its_own_primary_subset(pairs):
    other = pairs.with_columns(pl.lit("k").alias("judge"), pl.lit(0.3).alias("p_seed"))
    table = perturbation_metrics(pl.concat([pairs, other]), PerturbationConfig(n_resamples=20))
    assert set(table["judge"].to_list()) == {"j"}  # k scored every seed below the cut: nothing to measure


def test_missing_columns_are_named(pairs):
    with pytest.raises(ValueError, match="p_seed"):
        perturbation_metrics(pairs.drop("p_seed"))


def test_judged_pairs_need_both_answers():
    mutants = pl.DataFrame(
        {
            "mutant_uid": ["a~ARITH_FLIP~0", "b~ARITH_FLIP~0", "a~INC_PRE~0"],
            "seed_uid": ["a", "b", "a"],
            "operator": ["ARITH_FLIP", "ARITH_FLIP", "INC_PRE"],
            "arm": ["semantic", "semantic", "control"],
            "severity": [4, 4, None],
            "in_loop": [False] * 3,
            "in_guard": [False] * 3,
            "behaviour_changed": [True, True, None],
            "verified": [True, True, False],
        }
    )
    outputs = pl.DataFrame(
        {
            "judge": ["j"] * 4,
            "attempt_uid": ["a", "a~ARITH_FLIP~0", "b~ARITH_FLIP~0", "a~INC_PRE~0"],
            "status": ["ok", "ok", "ok", "ok"],
            "p_accept": [0.9, 0.2, 0.5, 0.9],
        }
    )
    got = judged_pairs(mutants, outputs)
    assert got["mutant_uid"].to_list() == ["a~ARITH_FLIP~0"]  # b's seed has no answer; the control is unverified
    assert got.row(0, named=True)["p_seed"] == 0.9 and got.row(0, named=True)["p_mutant"] == 0.2


def test_yield_table_counts():
    mutants = pl.DataFrame(
        {
            "operator": ["ARITH_FLIP", "ARITH_FLIP", "ARITH_FLIP", "INC_PRE"],
            "arm": ["semantic"] * 3 + ["control"],
            "severity": [4, 4, 4, None],
            "single_edit": [True] * 4,
            "compiles": [True, True, False, True],
            "verified": [True, True, False, True],
            "in_guard": [True, False, False, False],
            "in_loop": [True, True, False, True],
            "behaviour_changed": [True, False, None, None],
        }
    )
    table = yield_table(mutants)
    flip = table.filter(pl.col("operator") == "ARITH_FLIP").row(0, named=True)
    assert (flip["mutants"], flip["compiles"], flip["verified"], flip["in_guard"], flip["in_loop"]) == (3, 2, 2, 1, 2)
    assert flip["confirmed_share"] == pytest.approx(0.5)
    assert table["operator"].to_list() == ["ARITH_FLIP", "INC_PRE"]
