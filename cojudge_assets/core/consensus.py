"""The judges' rank consensus along a trajectory (seed study VI-C), and how it moves with churn.

q(a) is the mean over judges of the judge's percentile rank of p_accept within
that judge's own distribution of answers under the condition (nonblind by
default): judges with different scales contribute on the same footing, and no
judge's probabilities are read at face value. dq is q's change from the
previous attempt of the same trajectory (null on the first attempt). A
consensus figure is only as good as the panel behind it: the assets state the
panel's discrimination (from the measurement group) next to it.
"""

from __future__ import annotations

import numpy as np
import polars as pl

from cojudge_assets.core.agreement import percentile_ranks, spearman
from cojudge_assets.core.bootstrap import cluster_codes, cluster_weights, interval
from cojudge_assets.core.constants import SEED

CONSENSUS_SCHEMA = {"attempt_uid": pl.String, "participant": pl.String, "problem_id": pl.String, "turn": pl.Int64,
                    "verdict": pl.String, "accepted": pl.Boolean, "q": pl.Float64, "dq": pl.Float64,
                    "n_judges": pl.Int64}


def rank_consensus(predictions: pl.DataFrame, condition: str = "nonblind") -> pl.DataFrame:
    """One row per attempt judged under ``condition``: q, dq and how many judges q averages."""
    part = predictions.filter(pl.col("condition") == condition)
    if part.is_empty():
        return pl.DataFrame(schema=CONSENSUS_SCHEMA)
    ranked = []
    for _, mine in part.group_by("judge", maintain_order=True):
        ranked.append(mine.with_columns(pl.Series("rank", percentile_ranks(mine["p_accept"].to_numpy()))))
    table = (pl.concat(ranked)
             .group_by("attempt_uid", "participant", "problem_id", "turn", "verdict", "accepted")
             .agg(pl.col("rank").mean().alias("q"), pl.len().alias("n_judges"))
             .sort("participant", "problem_id", "turn"))
    table = table.with_columns((pl.col("q") - pl.col("q").shift(1).over("participant", "problem_id")).alias("dq"))
    return table.select(list(CONSENSUS_SCHEMA)).cast(CONSENSUS_SCHEMA)


def panel_discrimination(panel: pl.DataFrame, condition: str) -> dict:
    """The panel's ROC-AUC and interval under ``condition`` from the measurement group's ``panel`` table."""
    row = panel.filter((pl.col("judge") == "panel") & (pl.col("condition") == condition)
                       & (pl.col("metric") == "roc_auc"))
    if row.is_empty():
        return {"panel_roc_auc": None, "panel_roc_auc_lo": None, "panel_roc_auc_hi": None}
    return {"panel_roc_auc": row["value"][0], "panel_roc_auc_lo": row["lo"][0], "panel_roc_auc_hi": row["hi"][0]}


def churn_vs_improvement(pairs: pl.DataFrame, consensus: pl.DataFrame, columns: tuple[str, ...], *,
                         resamples: int = 2000, seed: int = SEED) -> pl.DataFrame:
    """Spearman's rho between each churn column and the consensus change dq of the later attempt.

    The interval resamples trajectories (participant, problem) with replacement.
    """
    joined = pairs.join(consensus.select(pl.col("attempt_uid").alias("attempt_uid_to"), "dq"),
                        on="attempt_uid_to", how="inner")
    rows = []
    for column in columns:
        usable = joined.filter(pl.col(column).is_not_null() & pl.col("dq").is_not_null())
        if len(usable) < 3:
            rows.append({"metric": f"spearman_{column}_vs_dq", "value": None, "lo": None, "hi": None,
                         "n": len(usable)})
            continue
        x, y = usable[column].to_numpy().astype(float), usable["dq"].to_numpy().astype(float)
        clusters = cluster_codes(usable["participant"].to_numpy(), usable["problem_id"].to_numpy())
        replicates = np.concatenate([spearman(x, y, w) for w in cluster_weights(clusters, resamples, seed)])
        lo, hi = interval(replicates)
        rows.append({"metric": f"spearman_{column}_vs_dq", "value": float(spearman(x, y)), "lo": lo, "hi": hi,
                     "n": len(usable)})
    return pl.DataFrame(rows, schema={"metric": pl.String, "value": pl.Float64, "lo": pl.Float64,
                                      "hi": pl.Float64, "n": pl.Int64})
