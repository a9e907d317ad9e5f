"""The drift report: a judge's answers before and after its provider changed the served model.

For each drift event (judge, old epoch, new epoch) and condition, over the
attempts answered validly in both epochs: Spearman's rho between the old and
the new p (how far the ranking moved), and each headline metric (ROC-AUC,
PR-AUC, Brier, LogLoss) in both epochs with the paired change new - old. The
intervals come from one trajectory bootstrap per (judge, condition): the same
resampled attempts score both epochs, so the change is paired.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.measurement.agreement import spearman
from cojudge_assets.core.measurement.measure import SCALAR_METRICS
from cojudge_assets.core.stats.bootstrap import cluster_codes, cluster_weights, interval

if TYPE_CHECKING:
    from polars._typing import PolarsDataType  # the dtype alias polars' own signatures use

ANSWER_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "attempt_uid": pl.String,
    "epoch": pl.Int32,
    "p_accept": pl.Float64,
    "served_model": pl.String,
    "y": pl.Int64,
    "participant": pl.String,
    "problem_id": pl.String,
}
REPORT_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "old_epoch": pl.Int32,
    "new_epoch": pl.Int32,
    "old_identity": pl.String,
    "new_identity": pl.String,
    "metric": pl.String,
    "old": pl.Float64,
    "new": pl.Float64,
    "delta": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
}
# the scores' ranking and proper-score metrics of the registry (core/measurement/measure.py): no decisions to re-fit
METRICS = ("roc_auc", "pr_auc", "brier", "log_loss")


def _metric(name: str, y: np.ndarray, p: np.ndarray, w=None):
    return SCALAR_METRICS[name].fn(y, p, None, w)


def _paired(
    old: np.ndarray, new: np.ndarray, y: np.ndarray, clusters: np.ndarray, resamples: int, seed: int
) -> list[dict]:
    rows: list[dict] = [{"metric": "rank_correlation", "old": None, "new": None, "delta": float(spearman(old, new))}]
    rows += [
        {"metric": name, "old": float(_metric(name, y, old)), "new": float(_metric(name, y, new))} for name in METRICS
    ]
    for row in rows[1:]:
        row["delta"] = row["new"] - row["old"]
    replicates: dict[str, list[np.ndarray]] = {row["metric"]: [] for row in rows}
    for w in cluster_weights(clusters, resamples, seed):
        replicates["rank_correlation"].append(np.asarray(spearman(old, new, w)))
        for name in METRICS:
            replicates[name].append(np.asarray(_metric(name, y, new, w)) - np.asarray(_metric(name, y, old, w)))
    for row in rows:
        row["lo"], row["hi"] = interval(np.concatenate(replicates[row["metric"]]))
    return rows


def drift_comparison(
    answers: pl.DataFrame, events: pl.DataFrame, *, resamples: int = 2000, seed: int = SEED
) -> pl.DataFrame:
    """One row per (drift event, condition, metric); see the module docstring.

    ``answers``: valid answers with their epoch and label (:data:`ANSWER_SCHEMA`); ``events``: judge,
    old_epoch, new_epoch, old_identity, new_identity.
    """
    out = []
    for event in events.iter_rows(named=True):
        mine = answers.filter(pl.col("judge") == event["judge"])
        for condition in sorted(set(mine["condition"].to_list())):
            cell = mine.filter(pl.col("condition") == condition)
            old = cell.filter(pl.col("epoch") == event["old_epoch"]).select(
                "attempt_uid", "participant", "problem_id", "y", pl.col("p_accept").alias("p_old")
            )
            new = cell.filter(pl.col("epoch") == event["new_epoch"]).select(
                "attempt_uid", pl.col("p_accept").alias("p_new")
            )
            both = old.join(new, on="attempt_uid").sort("attempt_uid")
            if len(both) < 2:
                continue
            clusters = cluster_codes(both["participant"].to_numpy(), both["problem_id"].to_numpy())
            for row in _paired(
                both["p_old"].to_numpy(), both["p_new"].to_numpy(), both["y"].to_numpy(), clusters, resamples, seed
            ):
                out.append(
                    {
                        "judge": event["judge"],
                        "condition": condition,
                        "old_epoch": event["old_epoch"],
                        "new_epoch": event["new_epoch"],
                        "old_identity": event["old_identity"],
                        "new_identity": event["new_identity"],
                        "n": len(both),
                        **row,
                    }
                )
    return pl.DataFrame(out, schema=REPORT_SCHEMA)


EVENT_SCHEMA: dict[str, PolarsDataType] = {
    "judge": pl.String,
    "old_identity": pl.String,
    "new_identity": pl.String,
    "seen_at": pl.Datetime("us"),
    "old_epoch": pl.Int32,
    "new_epoch": pl.Int32,
}


def read_drift_inputs(
    store, attempts: pl.DataFrame, judge_outputs: pl.DataFrame | None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The drift events and the valid answers in every epoch of the contest's ``attempts``, with labels.

    ``store``: the judge store (judges/store.py ``DuckDBStore`` or judges/postgres_store.py ``PostgresStore``),
    where the judging path keeps the judge cache with every epoch's answers and the drift events; only the valid
    answers of the judges that drifted are read from it (``valid_answers``), never the whole cache. ``attempts`` and
    ``judge_outputs`` are the asset frames. Only the judges of the run (those with a ``judge_outputs`` partition;
    none when the run has no judge) are compared.
    """
    empty = pl.DataFrame(schema=ANSWER_SCHEMA), pl.DataFrame(schema=EVENT_SCHEMA)
    judges = judge_outputs["judge"].unique() if judge_outputs is not None and "judge" in judge_outputs.columns else None
    if judges is None or "attempt_uid" not in attempts.columns:
        return empty
    recorded = store.read_table("drift_events")
    if recorded is None:
        return empty
    events = recorded.cast(EVENT_SCHEMA).sort("seen_at").filter(pl.col("judge").is_in(judges.implode()))
    drifted = sorted(set(events["judge"].to_list()))
    cache = store.valid_answers(drifted, ("judge", "condition", "attempt_uid", "epoch", "p_accept", "served_model"))
    labels = attempts.select("attempt_uid", pl.col("accepted").cast(pl.Int64).alias("y"), "participant", "problem_id")
    answers = cache.join(labels, on="attempt_uid", how="inner").select(list(ANSWER_SCHEMA)).cast(ANSWER_SCHEMA)
    return answers, events
