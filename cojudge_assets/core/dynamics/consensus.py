"""The judges' rank consensus along a trajectory (seed study VI-C), and how it moves with churn.

q(a) is the mean over judges of the judge's percentile rank of p_accept within
that judge's own distribution of answers under the condition (nonblind by
default): judges with different scales contribute on the same footing, and no
judge's probabilities are read at face value. dq is q's change from the
previous attempt of the same trajectory (null on the first attempt). A
consensus figure is only as good as the panel behind it: the assets state the
panel's discrimination (from the measurement group) next to it.

Who is pooled follows the measurement group's rule (core/dynamics/pooling.py): a judge
whose answers under the condition are all one value, or that answered nothing
there, is left out (its ranks would be one tie pulling every q to the middle),
and every row's ``left_out`` says who and why (null when no judge is left
out). An abstention (missing p_accept) is not an answer. An attempt only
left-out judges answered keeps its row, with q null and ``n_judges`` 0.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.dynamics import pooling
from cojudge_assets.core.measurement.agreement import percentile_ranks, spearman
from cojudge_assets.core.stats.bootstrap import cluster_codes, cluster_weights, interval

CONSENSUS_SCHEMA = pl.Schema(
    {
        "attempt_uid": pl.String,
        "participant": pl.String,
        "problem_id": pl.String,
        "turn": pl.Int64,
        "verdict": pl.String,
        "accepted": pl.Boolean,
        "q": pl.Float64,
        "dq": pl.Float64,
        "n_judges": pl.Int64,
        "left_out": pl.String,
    }
)
ATTEMPT_COLUMNS = ("attempt_uid", "participant", "problem_id", "turn", "verdict", "accepted")


def consensus_members(predictions: pl.DataFrame, condition: str) -> tuple[list[str], list[pooling.LeftOut]]:
    """The judges the consensus under ``condition`` averages over, and those core/dynamics/pooling.py leaves out."""
    part = predictions.filter(pl.col("condition") == condition)
    return pooling.split(
        {judge: mine["p_accept"].to_numpy() for (judge,), mine in part.group_by("judge", maintain_order=True)}
    )


def rank_consensus(predictions: pl.DataFrame, condition: str = "nonblind") -> pl.DataFrame:
    """One row per attempt judged under ``condition``: q, dq, how many judges q averages, who is left out."""
    part = predictions.filter(pl.col("condition") == condition)
    if part.is_empty():
        return pl.DataFrame(schema=CONSENSUS_SCHEMA)
    members, out = consensus_members(part, condition)
    answers = part.filter(pl.col("p_accept").is_not_null() & pl.col("p_accept").is_not_nan())
    ranked = [
        mine.select("attempt_uid", pl.Series("rank", percentile_ranks(mine["p_accept"].to_numpy())))
        for (judge,), mine in answers.group_by("judge", maintain_order=True)
        if judge in members
    ]
    ranks = pl.concat(ranked) if ranked else pl.DataFrame(schema={"attempt_uid": pl.String, "rank": pl.Float64})
    q = ranks.group_by("attempt_uid").agg(pl.col("rank").mean().alias("q"), pl.len().alias("n_judges"))
    note = "; ".join(x.note(f"under {condition}") for x in out) or None
    table = (
        part.select(ATTEMPT_COLUMNS)
        .unique("attempt_uid")
        .join(q, on="attempt_uid", how="left")
        .with_columns(pl.col("n_judges").fill_null(0), pl.lit(note, dtype=pl.String).alias("left_out"))
        .sort("participant", "problem_id", "turn", "attempt_uid")
    )
    table = table.with_columns((pl.col("q") - pl.col("q").shift(1).over("participant", "problem_id")).alias("dq"))
    return table.select(list(CONSENSUS_SCHEMA)).cast(CONSENSUS_SCHEMA)


def panel_discrimination(panel: pl.DataFrame, condition: str) -> dict:
    """The panel's ROC-AUC and interval under ``condition`` from the measurement group's ``panel`` table."""
    row = panel.filter(
        (pl.col("judge") == "panel") & (pl.col("condition") == condition) & (pl.col("metric") == "roc_auc")
    )
    if row.is_empty():
        return {"panel_roc_auc": None, "panel_roc_auc_lo": None, "panel_roc_auc_hi": None}
    return {"panel_roc_auc": row["value"][0], "panel_roc_auc_lo": row["lo"][0], "panel_roc_auc_hi": row["hi"][0]}


def churn_vs_improvement(
    pairs: pl.DataFrame, consensus: pl.DataFrame, columns: tuple[str, ...], *, resamples: int = 2000, seed: int = SEED
) -> pl.DataFrame:
    """Spearman's rho between each churn column and the consensus change dq of the later attempt.

    The interval resamples trajectories (participant, problem) with replacement.
    """
    joined = pairs.join(
        consensus.select(pl.col("attempt_uid").alias("attempt_uid_to"), "dq"), on="attempt_uid_to", how="inner"
    )
    rows: list[dict] = []
    for column in columns:
        usable = joined.filter(pl.col(column).is_not_null() & pl.col("dq").is_not_null())
        if len(usable) < 3:
            rows.append({"metric": f"spearman_{column}_vs_dq", "value": None, "lo": None, "hi": None, "n": len(usable)})
            continue
        x, y = usable[column].to_numpy().astype(float), usable["dq"].to_numpy().astype(float)
        clusters = cluster_codes(usable["participant"].to_numpy(), usable["problem_id"].to_numpy())
        replicates = np.concatenate([spearman(x, y, w) for w in cluster_weights(clusters, resamples, seed)])
        lo, hi = interval(replicates)
        rows.append(
            {"metric": f"spearman_{column}_vs_dq", "value": float(spearman(x, y)), "lo": lo, "hi": hi, "n": len(usable)}
        )
    return pl.DataFrame(
        rows, schema={"metric": pl.String, "value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "n": pl.Int64}
    )
