"""Group ``measurement``: the judges scored as instruments (core/measurement.py), and ``predictions``.

``predictions`` joins every valid judge answer to its attempt's label; its
blocking check proves that the code each judge was sent is the attempt's code
on every row. The measurement tables are one multi-asset because they share
one set of folds and one set of bootstrap resamples (paired differences).
"""

from pathlib import Path

import dagster as dg
import numpy as np
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core import calibration, plots
from cojudge_assets.core.agreement import pairwise_agreement
from cojudge_assets.core.measurement import MeasurementConfig, headline_table, measure, run_to_run
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.resources import output_dir

KINDS = {"polars", "duckdb"}
PREDICTIONS_SCHEMA = {
    "attempt_uid": pl.String, "judge": pl.String, "condition": pl.String, "p_accept": pl.Float64,
    "s_algo": pl.Int32, "s_robust": pl.Int32, "request_hash": pl.String, "served_model": pl.String,
    "participant": pl.String, "problem_id": pl.String, "turn": pl.Int64, "verdict": pl.String,
    "accepted": pl.Boolean, "y": pl.Int64, "evidence": pl.Boolean, "code": pl.String, "code_matches": pl.Boolean,
}


def _has_table(conn, name: str) -> bool:
    return bool(conn.execute("select count(*) from information_schema.tables where table_schema = 'main' "
                             "and table_name = ?", [name]).fetchone()[0])


@dg.asset(
    group_name="judging",
    kinds=KINDS,
    code_version="1",
    deps=["judge_outputs", "judge_requests", "attempts", "participant_context"],
    check_specs=[dg.AssetCheckSpec("judged_code_is_attempt_code", asset="predictions", blocking=True,
                                   description="On every row the code in the request the judge answered equals "
                                   "the attempt's code (seed study V4).")],
    description="One row per valid answer (attempt x judge x condition): p_accept and the rubric scores joined to "
    "the label (y = 1 when the verdict is AC), the trajectory key, turn, and whether the attempt's nonblind "
    "context is evidence-backed (anchored or segmented).",
)
def predictions(context: dg.AssetExecutionContext, duckdb: DuckDBResource):
    with duckdb.get_connection() as conn:
        if not _has_table(conn, "judge_outputs"):
            table = pl.DataFrame(schema=PREDICTIONS_SCHEMA)
        else:
            table = conn.execute("""
                select o.attempt_uid, o.judge, o.condition, o.p_accept, o.s_algo, o.s_robust, o.request_hash,
                       o.served_model, a.participant, a.problem_id, a.turn, a.verdict, a.accepted,
                       a.accepted::bigint as y, coalesce(pc.provenance in ('anchored', 'segmented'), false) as evidence,
                       a.code, coalesce(r.source_code = a.code, false) as code_matches
                from main.judge_outputs o
                join main.attempts a using (attempt_uid)
                left join main.judge_requests r using (attempt_uid, condition, request_hash)
                left join (select attempt_uid, provenance from main.participant_context
                           where condition = 'nonblind') pc using (attempt_uid)
                where o.status = 'ok'
                order by o.judge, o.condition, o.attempt_uid""").pl().cast(PREDICTIONS_SCHEMA)
    mismatched = table.filter(~pl.col("code_matches"))
    cells = table.group_by("judge", "condition").len().sort("judge", "condition")
    yield dg.Output(table, metadata={"rows": len(table), "cells": dg.MetadataValue.md(markdown_table(cells))})
    yield dg.AssetCheckResult(check_name="judged_code_is_attempt_code", passed=mismatched.is_empty(), metadata={
        "rows_checked": len(table), "mismatched": len(mismatched),
        "examples": dg.MetadataValue.md(markdown_table(mismatched.select("attempt_uid", "judge", "condition")
                                                       .head(20))) if len(mismatched) else "none"})


class MeasurementSettings(dg.Config):
    folds: int = 10
    resamples: int = 2000
    seed: int = 20260314
    confident: float = 0.2


TABLES = {
    "judge_metrics": "Per judge x condition: ROC-AUC, PR-AUC, LogLoss (p clipped to [1e-6, 1-1e-6]), Brier, ECE "
    "(15 bins), MCC in-fold and out-of-fold, thresholds, base rate, mean p; trajectory-bootstrap intervals (lo, hi) "
    "and problem-clustered ones (lo_problem, hi_problem).",
    "scale_validity": "Distinct probability values, effective decision rules on the 0.01..0.99 grid, shares at "
    "exactly 0 and 1, MCC drop from in-fold to out-of-fold.",
    "agreement": "Per condition: pairwise Cohen's kappa (median cuts) and Spearman rho, Fleiss' kappa, means, "
    "rho minus kappa.",
    "condition_effects": "Per judge: ROC-AUC change between conditions (all attempts and the evidence-backed "
    "subset) with paired intervals, rank correlation between conditions; Fleiss' kappa change.",
    "panel": "The unweighted percentile-rank panel scored like a judge; its gain over the mean member and its "
    "difference from the best member, paired.",
    "per_problem": "ROC-AUC per problem (inverted orderings flagged) and the problem-weighted macro average.",
    "consistency": "Identical consecutive resubmissions and how far p moved; run-to-run Krippendorff's alpha where "
    "a judge was run more than once.",
    "error_profile": "Confusion at the out-of-fold thresholds; confident false negatives and positives.",
    "recalibration": "Out-of-fold isotonic and Platt recalibration: ECE, Brier and ROC-AUC before and after.",
}


def _plots(predictions: pl.DataFrame, folder: Path) -> dict[str, str]:
    files = {}
    for condition in sorted(predictions["condition"].unique().to_list()):
        part = predictions.filter(pl.col("condition") == condition)
        curves, tables, preds = {}, {}, {}
        for judge in sorted(part["judge"].unique().to_list()):
            mine = part.filter(pl.col("judge") == judge).sort("attempt_uid")
            p, y = mine["p_accept"].to_numpy(), mine["y"].to_numpy()
            curves[judge] = (p, y)
            tables[judge] = calibration.reliability_table(p, y)
            preds[judge] = p
        files[f"roc_{condition}"] = str(plots.roc_curves(curves, folder / f"roc_{condition}.png",
                                                         f"ROC curves, {condition}"))
        files[f"reliability_{condition}"] = str(plots.reliability_diagram(
            tables, folder / f"reliability_{condition}.png", f"Reliability (15 bins), {condition}"))
        judges = sorted(preds)
        if len(judges) >= 2 and len({len(v) for v in preds.values()}) == 1:
            kappa = np.eye(len(judges))
            for pair in pairwise_agreement(preds):
                a, b = judges.index(pair["judge_a"]), judges.index(pair["judge_b"])
                kappa[a, b] = kappa[b, a] = pair["kappa"]
            files[f"kappa_{condition}"] = str(plots.heatmap(kappa, judges, folder / f"kappa_{condition}.png",
                                                            f"Cohen's kappa (median cuts), {condition}"))
    return files


@dg.multi_asset(
    group_name="measurement",
    outs={name: dg.AssetOut(kinds=KINDS, code_version="1", description=text) for name, text in TABLES.items()},
)
def measurement(context: dg.AssetExecutionContext, config: MeasurementSettings, predictions: pl.DataFrame,
                duckdb: DuckDBResource):
    settings = MeasurementConfig(folds=config.folds, resamples=config.resamples, seed=config.seed,
                                 confident=config.confident, problem_resamples=config.resamples)
    if predictions.is_empty():
        empty = pl.DataFrame(schema={"judge": pl.String, "condition": pl.String, "metric": pl.String,
                                     "value": pl.Float64, "lo": pl.Float64, "hi": pl.Float64, "n": pl.Int64})
        for name in TABLES:
            yield dg.Output(empty, output_name=name, metadata={"rows": 0, "note": "no judge predictions yet"})
        return
    tables = measure(predictions, settings)
    with duckdb.get_connection() as conn:
        cache = conn.execute("select judge, condition, attempt_uid, request_hash, epoch, status, p_accept "
                             "from main.judge_cache").pl() if _has_table(conn, "judge_cache") else None
    if cache is not None and len(cache):
        tables["consistency"] = pl.concat([tables["consistency"], run_to_run(cache)])
    files = _plots(predictions, output_dir() / "measurement")
    for name, table in tables.items():
        metadata = {"rows": len(table), "resamples": settings.resamples, "folds": settings.folds,
                    "seed": settings.seed}
        if name == "judge_metrics":
            for condition in sorted(table["condition"].unique().to_list()):
                metadata[f"table_{condition}"] = dg.MetadataValue.md(markdown_table(headline_table(table, condition)))
            metadata.update({k: dg.MetadataValue.path(v) for k, v in files.items() if not k.startswith("kappa")})
        if name == "agreement":
            metadata.update({k: dg.MetadataValue.path(v) for k, v in files.items() if k.startswith("kappa")})
        yield dg.Output(table, output_name=name, metadata=metadata)
