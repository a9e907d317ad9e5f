"""``cojudge``: the command-line entry point.

``cojudge materialize`` materializes the whole asset graph on the configured
corpus (the shipped demo corpus by default) into the DuckDB file, as a run of
the local Dagster instance (``dagster_home/`` unless DAGSTER_HOME is set), so
the run and its lineage show in ``dagster dev``.
"""

from __future__ import annotations

import argparse
import os
import sys
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _instance():
    import dagster as dg

    os.environ.setdefault("DAGSTER_HOME", str(PROJECT_ROOT / "dagster_home"))
    Path(os.environ["DAGSTER_HOME"]).mkdir(parents=True, exist_ok=True)
    return dg.DagsterInstance.get()


def materialize(args: argparse.Namespace) -> int:
    if args.duckdb:
        os.environ["COJUDGE_DUCKDB"] = str(Path(args.duckdb).resolve())
    from cojudge_assets.definitions import ALL_ASSETS_JOB, build_definitions
    from cojudge_assets.defs.resources import duckdb_path

    defs = build_definitions()
    job = defs.resolve_job_def(ALL_ASSETS_JOB)
    run_config = {}
    if args.corpus:
        run_config = {"resources": {"corpus": {"config": {"path": str(Path(args.corpus).resolve()),
                                                          "layout": args.layout}}}}
    result = job.execute_in_process(instance=_instance(), run_config=run_config or None, raise_on_error=False)
    materialized = result.get_asset_materialization_events()
    print(f"run {result.run_id}: {'success' if result.success else 'FAILED'}; "
          f"{len(materialized)} asset(s) materialized into {duckdb_path()}")
    return 0 if result.success else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cojudge", description="cojudge: LLM judges of code as instruments.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("materialize", help="materialize the whole asset graph into DuckDB")
    m.add_argument("--corpus", help="corpus folder (default: the shipped demo corpus, data/demo)")
    m.add_argument("--layout", default="pages", help="corpus layout (default: pages)")
    m.add_argument("--duckdb", help="DuckDB file (default: $COJUDGE_DUCKDB or data/cojudge.duckdb)")
    m.set_defaults(func=materialize)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
