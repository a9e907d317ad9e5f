"""The cross-judge tables' computation alone: peak RSS and CPU of agreement, condition_effects and panel on a built
study, read the way the ``measurement`` asset reads them.

Reads a finished study's DuckDB file (``bench/scale_rehearsal.py --keep``, or any ``cojudge materialize``), no
Dagster in the process. ``--reader slices`` (the asset's, defs/measurement/assets.py): the predictions one judge x
condition at a time (attempt_uid and p_accept), kept as each cell's arrays (core/measurement/measure.py
``Universe.from_slices``), and the universe from the requests and contexts read one condition at a time
(core/measurement/predictions.py ``universe_of_slices``). ``--reader frame`` (the asset's before issue 33): the
predictions' nine scored columns in one frame and the universe joined in DuckDB (``read_universe``), then
``measure``. ``--compare``: both, and the three tables checked equal (values, intervals, n, row for row).

Prints the RSS once the inputs are read (and the cells built, for slices), the peak after the computation, and
the CPU seconds of each part.

    .venv/bin/python bench/cross_judge_memory.py --duckdb FILE [--reader slices|frame] [--compare]
"""

from __future__ import annotations

import argparse
import resource
import sys
import time
from collections.abc import Callable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import polars as pl  # noqa: E402
from polars.testing import assert_frame_equal  # noqa: E402

from cojudge_assets.core.frames import duckdb_table_reader  # noqa: E402
from cojudge_assets.core.measurement.measure import CROSS_TABLES, MeasurementConfig, Universe, measure  # noqa: E402
from cojudge_assets.core.measurement.predictions import (  # noqa: E402
    CROSS_READ,
    CROSS_SLICES,
    SCORED_COLUMNS,
    cell_slices,
    read_universe,
    universe_of_slices,
)


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def held_mb() -> float:
    with open("/proc/self/status") as status:
        return next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024


def by_slices(database: Path) -> dict[str, pl.DataFrame]:
    started = time.process_time()

    def reader(table: str, columns: list[str]):
        return duckdb_table_reader(str(database), f"main.{table}", table, columns, read_only=True)

    with duckdb.connect(str(database), read_only=True) as conn:
        attempts = conn.execute(f"select {', '.join(CROSS_READ['attempts'])} from main.attempts").pl()
    universe = universe_of_slices(
        reader("judge_requests", CROSS_SLICES["judge_requests"]),
        attempts,
        reader("participant_context", CROSS_SLICES["participant_context"]),
    )
    del attempts
    u = Universe.from_slices(
        cell_slices(reader("predictions", CROSS_SLICES["predictions"])), MeasurementConfig(), universe
    )
    del universe
    predictions = sum(len(cell.p) for cell in u.cells.values())
    return computed(
        f"slices: {predictions} predictions in {len(u.cells)} cells, {len(u.y)} attempts",
        started,
        lambda: measure(None, MeasurementConfig(), tables=CROSS_TABLES, universe=u),
    )


def by_frame(database: Path) -> dict[str, pl.DataFrame]:
    started = time.process_time()
    with duckdb.connect(str(database), read_only=True) as conn:
        conn.execute("set enable_progress_bar = false")
        predictions = pl.DataFrame(conn.execute(f"select {', '.join(SCORED_COLUMNS)} from main.predictions").arrow())
        universe = read_universe(conn)
    return computed(
        f"frame: {len(predictions)} predictions, {len(universe)} attempts",
        started,
        lambda: measure(predictions, MeasurementConfig(), attempts=universe, tables=CROSS_TABLES),
    )


def computed(read: str, started: float, tables: Callable[[], dict[str, pl.DataFrame]]) -> dict[str, pl.DataFrame]:
    """Prints what was read (its CPU since ``started``, the RSS held and the peak), computes the tables and prints
    their rows, CPU and the peak."""
    loaded = time.process_time()
    print(f"{read}: {loaded - started:.1f} CPU-s, held {held_mb():.0f} MB, peak {peak_mb():.0f} MB", flush=True)
    made = tables()
    rows = ", ".join(f"{name} {len(table)}" for name, table in made.items())
    print(f"cross-judge tables ({rows}): {time.process_time() - loaded:.1f} CPU-s, peak {peak_mb():.0f} MB", flush=True)
    return made


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--reader", choices=("slices", "frame"), default="slices")
    parser.add_argument("--compare", action="store_true", help="both readers, and their tables checked equal")
    args = parser.parse_args()
    if not args.duckdb.exists():
        raise SystemExit(f"--duckdb {args.duckdb}: no such file")
    if not args.compare:
        (by_slices if args.reader == "slices" else by_frame)(args.duckdb)
        return
    new, old = by_slices(args.duckdb), by_frame(args.duckdb)
    for name in CROSS_TABLES:
        assert_frame_equal(new[name], old[name])
        print(f"{name}: {len(new[name])} rows, equal under both readers")


if __name__ == "__main__":
    main()
