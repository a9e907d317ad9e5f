"""The judges' rank consensus: percentile ranks per judge, q, dq, and its relation to churn."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from cojudge_assets.core.consensus import churn_vs_improvement, rank_consensus


def predictions() -> pl.DataFrame:
    # two judges on different scales: a answers 0.1..0.4, b answers 0.6..0.9, both in the same order
    rows = []
    for judge, offset in (("a", 0.0), ("b", 0.5)):
        for i, uid in enumerate(["t1", "t2", "t3", "u1"]):
            rows.append({"attempt_uid": uid, "judge": judge, "condition": "nonblind", "p_accept": 0.1 * (i + 1) + offset,
                         "participant": "s1" if uid.startswith("t") else "s2", "problem_id": "p",
                         "turn": int(uid[1]), "verdict": "AC" if uid == "t3" else "WA", "accepted": uid == "t3"})
    rows.append({**rows[0], "condition": "blind"})
    return pl.DataFrame(rows)


def test_q_is_the_mean_percentile_rank_within_each_judge():
    table = rank_consensus(predictions())
    q = dict(zip(table["attempt_uid"], table["q"]))
    # each judge ranks t1 < t2 < t3 < u1 within its own four answers: ranks 1/4, 2/4, 3/4, 4/4
    assert q == pytest.approx({"t1": 0.25, "t2": 0.5, "t3": 0.75, "u1": 1.0})
    assert set(table["n_judges"]) == {2}
    dq = dict(zip(table["attempt_uid"], table["dq"]))
    assert dq["t1"] is None and dq["u1"] is None  # first attempts of their trajectories
    assert dq["t2"] == pytest.approx(0.25) and dq["t3"] == pytest.approx(0.25)


def test_a_judges_scale_does_not_move_the_consensus():
    shifted = predictions().with_columns(
        pl.when(pl.col("judge") == "b").then(pl.col("p_accept") ** 3).otherwise(pl.col("p_accept")).alias("p_accept"))
    assert rank_consensus(shifted)["q"].to_list() == rank_consensus(predictions())["q"].to_list()


def test_churn_vs_improvement_is_spearman_with_a_trajectory_interval():
    rng = np.random.default_rng(0)
    n = 60
    consensus = pl.DataFrame({"attempt_uid": [f"a{i}" for i in range(n)], "dq": rng.normal(size=n)})
    churn = pl.DataFrame({"attempt_uid_to": [f"a{i}" for i in range(n)], "participant": [f"s{i % 12}" for i in range(n)],
                          "problem_id": "p", "ned_code": rng.random(n)})
    table = churn_vs_improvement(churn, consensus, ("ned_code",), resamples=400, seed=1)
    row = table.row(0, named=True)
    assert row["value"] == pytest.approx(spearmanr(churn["ned_code"], consensus["dq"]).statistic, abs=1e-9)
    assert row["lo"] < row["value"] < row["hi"] and row["n"] == n
    again = churn_vs_improvement(churn, consensus, ("ned_code",), resamples=400, seed=1)
    assert again.equals(table)
