"""Group ``operations``: what changed when a provider started serving another model (core/operations/drift.py).

``drift_report`` reads ``judge_outputs`` (the judges of the run), which is in the
Definitions only when the run has a judge: :func:`drift_report_asset` makes it
with the inputs the Definitions hold.
"""

from collections.abc import Set

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.operations.drift import drift_comparison, read_drift_inputs
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS, present_inputs
from cojudge_assets.defs.resources import judge_store


class DriftReportSettings(dg.Config):
    resamples: int = 2000
    seed: int = SEED


def drift_report_asset(present: Set[str]) -> dg.AssetsDefinition:
    """``drift_report`` over ``attempts`` and, when ``present`` (the Definitions) holds it, ``judge_outputs``."""

    @dg.asset(
        name="drift_report",
        group_name="operations",
        kinds=KINDS,
        code_version="1",
        # the judges of the run: only the judge column of judge_outputs is loaded
        ins=present_inputs(
            ("attempts", "judge_outputs"),
            present,
            columns={"judge_outputs": ["judge"], "attempts": ["attempt_uid", "accepted", "participant", "problem_id"]},
        ),
        description="One row per (drift event, condition, metric): Spearman's rho between the judge's old and new p "
        "on the attempts both epochs answered, and ROC-AUC, PR-AUC, Brier and LogLoss in both epochs with the paired "
        "change new - old and its trajectory-bootstrap interval. Empty while no drift was seen.",
    )
    def drift_report(
        context: dg.AssetExecutionContext, config: DriftReportSettings, duckdb: DuckDBResource, **frames: pl.DataFrame
    ) -> pl.DataFrame:
        with judge_store(duckdb) as store:  # the judge cache and the drift events: read by slice, never copied
            answers, events = read_drift_inputs(store, frames["attempts"], frames.get("judge_outputs"))
        table = drift_comparison(answers, events, resamples=config.resamples, seed=config.seed)
        context.add_output_metadata(
            {
                "drift_events": len(events),
                "events": dg.MetadataValue.md(markdown_table(events)) if len(events) else "none",
                "comparison": dg.MetadataValue.md(
                    markdown_table(table.with_columns(pl.col("old", "new", "delta", "lo", "hi").round(3)))
                )
                if len(table)
                else "no drift seen",
            }
        )
        return table

    return drift_report
