"""What one judge x condition partition of ``predictions`` and of the per-judge tables holds before measuring: its
inputs loaded from a study's DuckDB file with the columns (and rows) the assets read, then the predictions, the
universe and the outcomes joined (core/measurement/predictions.py), each with the process's RSS after it, its peak
so far and its CPU time. No Dagster: the figures are the data's, above the interpreter's.

    .venv/bin/python bench/predictions_memory.py STUDY.duckdb [--judge judge-a] [--condition blind]

Open the file on a copy (``cp``): a read-only connection fails while a run holds the file.
"""

from __future__ import annotations

import argparse
import resource
import time

import duckdb
import polars as pl

from cojudge_assets.core.frames import frame_reader
from cojudge_assets.core.measurement.predictions import (
    PREDICTIONS_READ,
    REQUESTS_ASKED,
    outcomes_table,
    predictions_table,
    universe_of,
)


def rss_mb() -> float:
    with open("/proc/self/statm") as statm:
        return int(statm.read().split()[1]) * resource.getpagesize() / 1e6


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1e3


def line(what: str, frame: pl.DataFrame, cpu: float) -> None:
    print(
        f"{what:<34} {frame.height:>9} rows  est {frame.estimated_size() / 1e6:6.0f} MB  rss {rss_mb():6.0f} MB  "
        f"peak {peak_mb():6.0f} MB  cpu {cpu:5.1f} s",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("database")
    parser.add_argument("--judge", default="judge-a")
    parser.add_argument("--condition", default="blind")
    args = parser.parse_args()
    print(f"start: rss {rss_mb():.0f} MB")
    rows = {
        "judge_outputs": "where judge = ? and condition = ?",
        "judge_requests": "where condition = ?",
        "attempts": "",
        "participant_context": "where condition = 'nonblind'",  # as the assets load it (defs/measurement/assets.py)
    }
    parameters = {"judge_outputs": [args.judge, args.condition], "judge_requests": [args.condition]}
    frames = {}
    with duckdb.connect(args.database, read_only=True) as conn:
        for name, columns in PREDICTIONS_READ.items():
            started = time.process_time()
            query = f"select {', '.join(columns)} from main.{name} {rows[name]}"
            frames[name] = pl.DataFrame(conn.execute(query, parameters.get(name, [])).arrow())
            line(f"loaded {name}", frames[name], time.process_time() - started)
        every = pl.DataFrame(conn.execute(f"select {', '.join(REQUESTS_ASKED)} from main.judge_requests").arrow())
    started = time.process_time()
    table = predictions_table(frames)
    line("predictions (the asset)", table, time.process_time() - started)
    del table
    started = time.process_time()
    scored = predictions_table({k: v for k, v in frames.items() if k != "judge_requests"}, with_hash=True)
    line("predictions (per-judge tables)", scored, time.process_time() - started)
    started = time.process_time()
    universe = universe_of(frame_reader("judge_requests", every), frames["attempts"], frames["participant_context"])
    line("universe (requests by condition)", universe, time.process_time() - started)
    started = time.process_time()
    mine = every.filter(pl.col("condition") == args.condition)
    outputs = frames["judge_outputs"]
    outcomes = outcomes_table({"judge_outputs": outputs, "judge_requests": mine, "attempts": frames["attempts"]})
    line("outcomes", outcomes, time.process_time() - started)


if __name__ == "__main__":
    main()
