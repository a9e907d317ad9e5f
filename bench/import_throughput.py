"""Imported judgments: the ICE-Score release (both languages) read, imported and scored, timed step by step.

Runs the import path as ``cojudge materialize --corpus <release> --layout icescore`` does, but with the
imported judges only (a judges file with no enabled judge), in one process, into a fresh DuckDB file and a
fresh Dagster home: ingest, the requests, every imported judge's partitions, and the measurement group.
Then once more, warm: nothing is imported again or recomputed.

    .venv/bin/python bench/import_throughput.py [--corpus ../shared/corpora/ice-score-humaneval]
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
DEFAULT_CORPUS = REPO.parent / "shared" / "corpora" / "ice-score-humaneval"
JOBS = ("ingest", "judge_requests_job", "judge_outputs_job", "measurement_job")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", default=str(DEFAULT_CORPUS))
    args = parser.parse_args()
    root = Path(tempfile.mkdtemp(prefix="cojudge-import-bench-"))
    (root / "home").mkdir()
    shutil.copy(REPO / "dagster_home" / "dagster.yaml", root / "home" / "dagster.yaml")
    (root / "judges.yaml").write_text("judges: []\n")
    os.environ.update(
        {
            "DAGSTER_HOME": str(root / "home"),
            "COJUDGE_DUCKDB": str(root / "ice.duckdb"),
            "COJUDGE_JUDGES": str(root / "judges.yaml"),
        }
    )
    import dagster as dg
    import duckdb

    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.driver import run_steps

    defs = build_definitions(corpus=str(Path(args.corpus).resolve()), layout="icescore")
    instance = dg.DagsterInstance.get()
    print(f"cores: {os.cpu_count()}  corpus: {args.corpus}")
    for label in ("cold", "warm"):
        times: dict[str, float] = {}
        for job in JOBS:
            started = time.perf_counter()
            outcome = run_steps(defs, instance, jobs=(job,), echo=lambda line: None)
            times[job] = time.perf_counter() - started
            if not outcome:
                raise SystemExit(f"{label}: {job} failed")
        total = sum(times.values())
        print(
            f"{label}: "
            + ", ".join(f"{job} {seconds:.1f} s" for job, seconds in times.items())
            + f"; total {total:.1f} s"
        )
    with duckdb.connect(str(root / "ice.duckdb"), read_only=True) as conn:
        attempts = conn.sql("select language, count(*) from main.attempts group by 1 order by 1").fetchall()
        judges = conn.sql(
            "select count(distinct judge), count(*) filter (where status = 'ok'), "
            "count(*) filter (where status = 'invalid') from main.judge_outputs"
        ).fetchone()
        sent = conn.sql("select count(*) from main.judge_cache where provenance = 'judged'").fetchone()[0]
    print(
        f"attempts: {dict(attempts)}; imported judges: {judges[0]}; answers ok: {judges[1]}, invalid: "
        f"{judges[2]}; rows sent to a provider: {sent}"
    )
    shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
