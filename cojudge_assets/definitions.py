"""The cojudge code location: every asset group under defs/, bound to DuckDB and the contest judge."""

from __future__ import annotations

from pathlib import Path

import dagster as dg

from cojudge_assets.defs.io import CojudgeDuckDBIOManager
from cojudge_assets.defs.resources import ContestJudgeResource, CorpusResource, duckdb_path

ALL_ASSETS_JOB = "cojudge_all"


def build_definitions() -> dg.Definitions:
    found = dg.load_from_defs_folder(path_within_project=Path(__file__).parent)
    assets = list(found.assets or [])
    return dg.Definitions(
        assets=assets,
        asset_checks=list(found.asset_checks or []),
        sensors=list(found.sensors or []),
        schedules=list(found.schedules or []),
        jobs=[dg.define_asset_job(ALL_ASSETS_JOB, selection=dg.AssetSelection.all(),
                                  description="Every asset of the graph, in dependency order.")],
        resources={
            "io_manager": CojudgeDuckDBIOManager(database=duckdb_path(), schema="main"),
            "contest_judge": ContestJudgeResource(),
            "corpus": CorpusResource(),
        },
        # DuckDB has one writer per file: run the steps of a run in one process
        executor=dg.in_process_executor,
    )


defs = build_definitions()
