"""Group ``report``: the study report, one self-contained HTML file and its Markdown twin.

The report's inputs are the asset tables its sections read (core/report/content.py
``READS``) that the Definitions hold, so :func:`report_asset` makes it when the
Definitions are built; the judging path's internal stores are read from DuckDB.
"""

import tempfile
from collections.abc import Set
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import CONDITIONS
from cojudge_assets.core.frames import frames_connection
from cojudge_assets.core.ingest.icescore import published_values
from cojudge_assets.core.report.content import READ_COLUMNS, STORES, read_stores, read_tables, report_sections
from cojudge_assets.core.report.document import write_report
from cojudge_assets.defs.io import present_inputs
from cojudge_assets.defs.resources import CorpusResource, JudgesResource, judge_store, output_dir
from cojudge_assets.judges.config import layout_judges

REPORT_TITLE = "cojudge report: LLM judges of code as instruments"


def report_asset(present: Set[str]) -> dg.AssetsDefinition:
    """``report`` with an input per asset table its sections read (``READS``) that ``present`` (the Definitions)
    holds."""
    inputs = present_inputs(read_tables(), present - set(STORES), columns=READ_COLUMNS)

    @dg.asset(
        name="report",
        group_name="report",
        kinds={"html", "duckdb"},
        code_version="3",  # 3: the findings section comes first
        ins=inputs,
        description="The study report: report.html (self-contained: figures embedded, no script, no external URL) "
        "and report.md beside it, in <DuckDB folder>/report/: inputs and conditions with coverage, served models "
        "and validity accounting, drift, the measurement, perturbation and dynamics tables and figures (each with "
        "a one-line reading guide), and the run configuration.",
    )
    def report(
        context: dg.AssetExecutionContext,
        duckdb: DuckDBResource,
        corpus: CorpusResource,
        judges: JudgesResource,
        **frames: pl.DataFrame,
    ) -> dg.MaterializeResult:
        folder = output_dir(duckdb)
        run_config = {
            "corpus": str(corpus.root()),
            "layout": corpus.layout,
            "duckdb": duckdb.database,
            "judges file": judges.path,
            "enabled judges": ", ".join(f"{s.name} ({s.model or 'imported'})" for s in judges.enabled()),
            "imported judges of the corpus": ", ".join(s.name for s in layout_judges(corpus.root(), corpus.layout))
            or "none",
            "conditions": ", ".join(CONDITIONS),
            "dagster run": context.run.run_id,
        }
        with judge_store(duckdb) as store:  # by slice and by count, never a copy of the store
            stores = read_stores(store, frames.get("attempts", pl.DataFrame()))
        # the figures are drawn from the tables into a scratch folder; write_report copies them to report/figures/
        with tempfile.TemporaryDirectory(prefix="cojudge-report-") as drawn:
            with frames_connection({**stores, **frames}) as conn:
                sections, missing = report_sections(conn, Path(drawn), published_values(corpus.root(), corpus.layout))
            run_config["groups not materialized"] = ", ".join(missing) or "none"
            generated_at = datetime.now(UTC).strftime("%Y-%m-%d %H:%M UTC")
            html, markdown = write_report(
                folder / "report", REPORT_TITLE, sections, run_config=run_config, generated_at=generated_at
            )
        return dg.MaterializeResult(
            metadata={
                "report": dg.MetadataValue.url(html.as_uri()),
                "html": dg.MetadataValue.path(str(html)),
                "markdown": dg.MetadataValue.path(str(markdown)),
                "sections": len(sections),
                "figures": sum(len(s.figures) for s in sections),
                "tables": sum(len(s.tables) for s in sections),
                "groups_missing": ", ".join(missing) or "none",
            }
        )

    return report
