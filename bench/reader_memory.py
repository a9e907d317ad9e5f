"""What one input costs a step in memory: a table read the way the DuckDB polars IO manager reads it.

The type handler (dagster_duckdb_polars, under defs/io.py's PolarsTableHandler) runs the select of the input's
columns and turns DuckDB's Arrow result into a polars DataFrame. This script does the same in a fresh child
process per table (so each figure starts from the same ~0.1 GB of Python, DuckDB and polars) and prints the rows,
polars' own estimate of the frame (``estimated_size``), the resident memory the child holds once the connection
is closed and the peak (``ru_maxrss``), and the CPU time. The gap between the estimate and the resident memory is
what the frame costs beyond its values: a polars string is a 16-byte view whose bytes stay in the Arrow buffers
DuckDB exported.

    .venv/bin/python bench/reader_memory.py --duckdb FILE [--table predictions --columns a,b,c] ...

Without ``--table``: the predictions' scored columns (what the cross-judge tables read) and four of them.
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
from pathlib import Path

CHILD = """
import gc, json, resource, sys, time
import duckdb, polars as pl
database, table, columns = sys.argv[1], sys.argv[2], sys.argv[3].split(",")
conn = duckdb.connect(database, read_only=True)
conn.execute("set enable_progress_bar = false")
started = time.process_time()
frame = pl.DataFrame(conn.execute(f"select {', '.join(columns)} from main.{table}").arrow())
conn.close()
gc.collect()
with open("/proc/self/status") as status:
    held = next(int(line.split()[1]) for line in status if line.startswith("VmRSS")) / 1024
print(json.dumps({
    "rows": len(frame), "estimated_mb": frame.estimated_size() / 2**20, "held_mb": held,
    "peak_mb": resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024, "cpu_s": time.process_time() - started,
}))
"""


def read_in_child(database: Path, table: str, columns: list[str]) -> dict:
    done = subprocess.run(
        [sys.executable, "-c", CHILD, str(database), table, ",".join(columns)], capture_output=True, text=True
    )
    if done.returncode != 0:
        raise SystemExit(f"reading {table} ({', '.join(columns)}) from {database} failed:\n{done.stderr[-2000:]}")
    return json.loads(done.stdout.splitlines()[-1])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--table", action="append", help="a table (repeatable; pair each with --columns)")
    parser.add_argument("--columns", action="append", help="comma-separated columns of the matching --table")
    args = parser.parse_args()
    if not args.duckdb.exists():
        raise SystemExit(f"--duckdb {args.duckdb}: no such file")
    if args.table:
        if not args.columns or len(args.columns) != len(args.table):
            raise SystemExit("--table and --columns: one --columns per --table, in the same order")
        reads = [(t, c.split(",")) for t, c in zip(args.table, args.columns)]
    else:
        from cojudge_assets.core.measurement.predictions import SCORED_COLUMNS

        reads = [
            ("predictions", list(SCORED_COLUMNS)),
            ("predictions", ["attempt_uid", "judge", "condition", "p_accept"]),
        ]
    print(f"{'table':<20} {'columns':>7} {'rows':>10} {'estimate MB':>12} {'held MB':>8} {'peak MB':>8} {'cpu s':>6}")
    for table, columns in reads:
        use = read_in_child(args.duckdb, table, columns)
        print(
            f"{table:<20} {len(columns):>7} {use['rows']:>10} {use['estimated_mb']:>12.0f} {use['held_mb']:>8.0f} "
            f"{use['peak_mb']:>8.0f} {use['cpu_s']:>6.1f}"
        )


if __name__ == "__main__":
    main()
