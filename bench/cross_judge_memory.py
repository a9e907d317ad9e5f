"""The cross-judge tables' computation alone: peak RSS and CPU of ``measure(tables=CROSS_TABLES)`` on a built study.

Reads a finished study's DuckDB file (``bench/scale_rehearsal.py --keep``, or any ``cojudge materialize``) the
way the ``measurement`` asset gets its inputs (the predictions' scored columns through DuckDB's Arrow result,
the universe of attempts asked about: core/measurement/predictions.py ``read_universe``), then computes
agreement, condition_effects and panel (core/measurement/measure.py), no Dagster in the process. Prints the RSS
once the inputs are loaded, the peak after the computation, and the CPU seconds of each part.

    .venv/bin/python bench/cross_judge_memory.py --duckdb FILE
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import polars as pl  # noqa: E402

from cojudge_assets.core.measurement.measure import CROSS_TABLES, MeasurementConfig, measure  # noqa: E402
from cojudge_assets.core.measurement.predictions import SCORED_COLUMNS, read_universe  # noqa: E402


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    args = parser.parse_args()
    if not args.duckdb.exists():
        raise SystemExit(f"--duckdb {args.duckdb}: no such file")
    started = time.process_time()
    with duckdb.connect(str(args.duckdb), read_only=True) as conn:
        conn.execute("set enable_progress_bar = false")
        predictions = pl.DataFrame(conn.execute(f"select {', '.join(SCORED_COLUMNS)} from main.predictions").arrow())
        universe = read_universe(conn)
    loaded = time.process_time()
    print(
        f"loaded {len(predictions)} predictions, {len(universe)} attempts: {loaded - started:.1f} CPU-s, "
        f"peak {peak_mb():.0f} MB",
        flush=True,
    )
    tables = measure(predictions, MeasurementConfig(), attempts=universe, tables=CROSS_TABLES)
    rows = ", ".join(f"{name} {len(table)}" for name, table in tables.items())
    print(f"cross-judge tables ({rows}): {time.process_time() - loaded:.1f} CPU-s, peak {peak_mb():.0f} MB")


if __name__ == "__main__":
    main()
