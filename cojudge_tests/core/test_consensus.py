"""The judges' rank consensus: percentile ranks per judge, q, dq, and its relation to churn."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr

from cojudge_assets.core.dynamics.consensus import churn_vs_improvement, rank_consensus


def predictions() -> pl.DataFrame:
    # two judges on different scales: a answers 0.1..0.4, b answers 0.6..0.9, both in the same order
    rows = []
    for judge, offset in (("a", 0.0), ("b", 0.5)):
        for i, uid in enumerate(["t1", "t2", "t3", "u1"]):
            rows.append(
                {
                    "attempt_uid": uid,
                    "judge": judge,
                    "condition": "nonblind",
                    "p_accept": 0.1 * (i + 1) + offset,
                    "participant": "s1" if uid.startswith("t") else "s2",
                    "problem_id": "p",
                    "turn": int(uid[1]),
                    "verdict": "AC" if uid == "t3" else "WA",
                    "accepted": uid == "t3",
                }
            )
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
        pl.when(pl.col("judge") == "b").then(pl.col("p_accept") ** 3).otherwise(pl.col("p_accept")).alias("p_accept")
    )
    assert rank_consensus(shifted)["q"].to_list() == rank_consensus(predictions())["q"].to_list()


def test_churn_vs_improvement_is_spearman_with_a_trajectory_interval():
    rng = np.random.default_rng(0)
    n = 60
    consensus = pl.DataFrame({"attempt_uid": [f"a{i}" for i in range(n)], "dq": rng.normal(size=n)})
    churn = pl.DataFrame(
        {
            "attempt_uid_to": [f"a{i}" for i in range(n)],
            "participant": [f"s{i % 12}" for i in range(n)],
            "problem_id": "p",
            "ned_code": rng.random(n),
        }
    )
    table = churn_vs_improvement(churn, consensus, ("ned_code",), resamples=400, seed=1)
    row = table.row(0, named=True)
    assert row["value"] == pytest.approx(spearmanr(churn["ned_code"], consensus["dq"]).statistic, abs=1e-9)
    assert row["lo"] < row["value"] < row["hi"] and row["n"] == n
    again = churn_vs_improvement(churn, consensus, ("ned_code",), resamples=400, seed=1)
    assert again.equals(table)


# -- who is pooled: core/dynamics/pooling.py's rule -----------------------------------------------------------------


def planted() -> pl.DataFrame:
    """Beside a and b: k answers 0.5 on every nonblind attempt, and follows a under blind; z abstains (null
    p_accept) on t1 and answers 0.3 on the rest; only k answered v1 (a single-attempt trajectory)."""
    base = predictions().filter(pl.col("condition") == "nonblind")
    blind = base.filter(pl.col("judge") == "a").with_columns(pl.lit("blind").alias("condition"))
    k = pl.concat([base.filter(pl.col("judge") == "a"), blind]).with_columns(
        pl.lit("k").alias("judge"),
        pl.when(pl.col("condition") == "nonblind").then(0.5).otherwise(pl.col("p_accept")).alias("p_accept"),
    )
    z = base.filter(pl.col("judge") == "a").with_columns(
        pl.lit("z").alias("judge"),
        pl.when(pl.col("attempt_uid") == "t1").then(None).otherwise(0.3).cast(pl.Float64).alias("p_accept"),
    )
    v1 = (
        k.filter(pl.col("attempt_uid") == "u1")
        .head(1)
        .with_columns(pl.lit("v1").alias("attempt_uid"), pl.lit("s3").alias("participant"))
    )
    return pl.concat([base, blind, k, z, v1])


def test_a_constant_judge_is_left_out_of_the_consensus_with_a_note():
    table = rank_consensus(planted())
    plain = rank_consensus(predictions())
    q = dict(zip(table["attempt_uid"], table["q"]))
    assert {uid: q[uid] for uid in plain["attempt_uid"]} == pytest.approx(dict(zip(plain["attempt_uid"], plain["q"])))
    assert dict(zip(table["attempt_uid"], table["n_judges"])) == {"t1": 2, "t2": 2, "t3": 2, "u1": 2, "v1": 0}
    # v1, answered only by the left-out judge, keeps its row without a score
    assert q["v1"] is None
    assert set(table["left_out"]) == {
        "k left out: 5 answers under nonblind, all 0.5; z left out: 3 answers under nonblind, all 0.3"
    }  # z's abstention not counted
    assert plain["left_out"].is_null().all()


def test_a_judge_is_left_out_only_under_the_condition_where_it_is_constant():
    table = rank_consensus(planted(), "blind")
    # under blind k varies (it follows a) and is pooled with a; nobody is left out
    assert dict(zip(table["attempt_uid"], table["n_judges"])) == {"t1": 2, "t2": 2, "t3": 2, "u1": 2}
    assert table["left_out"].is_null().all()
    assert dict(zip(table["attempt_uid"], table["q"])) == pytest.approx({"t1": 0.25, "t2": 0.5, "t3": 0.75, "u1": 1.0})


def test_an_abstention_is_not_an_answer_in_the_consensus():
    # z varies where it answered: pooled, ranked within its own 3 answers, absent from t1's mean
    varied = planted().with_columns(
        pl.when(pl.col("judge") == "z")
        .then(pl.col("p_accept") + pl.col("turn") / 10)
        .otherwise(pl.col("p_accept"))
        .alias("p_accept")
    )
    table = rank_consensus(varied)
    n = dict(zip(table["attempt_uid"], table["n_judges"]))
    assert n["t1"] == 2 and n["t2"] == 3 and n["u1"] == 3
    assert set(table["left_out"]) == {"k left out: 5 answers under nonblind, all 0.5"}
    q = dict(zip(table["attempt_uid"], table["q"]))
    # z's answers: t2 0.5, t3 0.6, u1 0.4 -> ranks 2/3, 1, 1/3; a and b rank t2 at 2/4
    assert q["t2"] == pytest.approx((0.5 + 0.5 + 2 / 3) / 3)
    assert q["u1"] == pytest.approx((1.0 + 1.0 + 1 / 3) / 3)
