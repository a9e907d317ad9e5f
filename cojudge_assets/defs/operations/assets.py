"""Group ``operations``: what changed when a provider started serving another model (core/drift.py)."""

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.drift import drift_comparison, read_drift_inputs
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS


class DriftReportSettings(dg.Config):
    resamples: int = 2000
    seed: int = SEED


@dg.asset(
    group_name="operations",
    kinds=KINDS,
    code_version="1",
    deps=["judge_outputs"],
    description="One row per (drift event, condition, metric): Spearman's rho between the judge's old and new p "
    "on the attempts both epochs answered, and ROC-AUC, PR-AUC, Brier and LogLoss in both epochs with the paired "
    "change new - old and its trajectory-bootstrap interval. Empty while no drift was seen.",
)
def drift_report(
    context: dg.AssetExecutionContext, config: DriftReportSettings, duckdb: DuckDBResource
) -> pl.DataFrame:
    with duckdb.get_connection() as conn:
        answers, events = read_drift_inputs(conn)
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
