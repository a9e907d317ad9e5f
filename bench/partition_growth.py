"""What stays in the process from one partition's run to the next: ``cojudge materialize --force --select ASSETS``
run in this process, with a line after each run (issue 33: a step of several partitions peaked 100-900 MB higher
from its second partition on).

After each run (``job.execute_in_process``, driver.py ``_run_step``) and the collection after it, it prints the
run's peak RSS (VmHWM, reset at the run's start), the resident set left (VmRSS), the file descriptors this process
still has open on the DuckDB file (a DuckDB database instance, with its buffer pool, lives while one connection to
it is open), the bytes that instance's buffer pool holds (``duckdb_memory()``, read only when the file is still
open: a probe would otherwise open an instance of its own), and the polars frames still alive (their count and
estimated size). The first partition's peak against the later ones' is the figure the issue asks about.

Run it on a COPY of a rehearsal folder (bench/scale_rehearsal.py's: corpus/, judges.yaml, rehearsal.duckdb, cache/,
home/); it writes the tables of the selected assets again:

    .venv/bin/python bench/partition_growth.py --folder /work/partmem-runs/s2-1e5 --select judge_outputs
"""

from __future__ import annotations

import argparse
import gc
import os
import re
import sys
import time
from pathlib import Path

RUN_PEAK = re.compile(r"\(run [0-9a-f-]+, [^)]*peak ([\d,]+) MB\)")  # the driver's line for a run


def status_mb(field: str) -> float:
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    return float("nan")


def open_on(path: Path) -> int:
    """File descriptors of this process open on ``path`` (its WAL included)."""
    names = {str(path.resolve()), f"{path.resolve()}.wal"}  # not its lock file (core/locks.py)
    count = 0
    for fd in os.listdir("/proc/self/fd"):
        try:
            if os.readlink(f"/proc/self/fd/{fd}") in names:
                count += 1
        except OSError:
            continue
    return count


def duckdb_cached_mb(path: Path) -> float | None:
    """The buffer pool of the DuckDB instance still open on ``path`` in this process (None when none is open)."""
    if not open_on(path):
        return None
    import duckdb

    from cojudge_assets.defs.io import dagster_config

    with duckdb.connect(str(path), config=dagster_config()) as connection:
        row = connection.execute("select sum(memory_usage_bytes) from duckdb_memory()").fetchone()
    return (row[0] or 0) / 2**20


def frames_alive() -> tuple[int, float]:
    import polars as pl

    frames = [o for o in gc.get_objects() if isinstance(o, pl.DataFrame)]
    return len(frames), sum(f.estimated_size() for f in frames) / 2**20


def malloc_mb() -> tuple[float, float]:
    """glibc malloc's bytes in use and bytes free but kept (mallinfo2: uordblks + hblkhd, fordblks), MB."""
    import ctypes

    class MallInfo2(ctypes.Structure):
        _fields_ = [
            (name, ctypes.c_size_t)
            for name in "arena ordblks smblks hblks hblkhd usmblks fsmblks uordblks fordblks keepcost".split()
        ]

    libc = ctypes.CDLL("libc.so.6")
    libc.mallinfo2.restype = MallInfo2
    info = libc.mallinfo2()
    return (info.uordblks + info.hblkhd) / 2**20, info.fordblks / 2**20


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--folder", type=Path, required=True, help="a COPY of a rehearsal folder")
    parser.add_argument("--select", default="judge_outputs")
    parser.add_argument(
        "--process-per-partition", action="store_true", help="the command's flag: a child per partition"
    )
    parser.add_argument(
        "--keep-outputs", action="store_true", help="as before 6fa9a05: each run's captured outputs left to Dagster"
    )
    parser.add_argument("--trace", action="store_true", help="tracemalloc: the Python allocations kept, run by run")
    parser.add_argument("--condition", action="append", help="only these conditions' partitions (the command's flag)")
    args = parser.parse_args()
    folder = args.folder.resolve()
    database = folder / "rehearsal.duckdb"
    if not database.exists():
        parser.error(f"--folder {folder}: no rehearsal.duckdb (a bench/scale_rehearsal.py folder)")
    os.environ.update(
        DAGSTER_HOME=str(folder / "home"),
        COJUDGE_CORPUS=str(folder / "corpus"),
        COJUDGE_LAYOUT="progsnap2",
        COJUDGE_JUDGES=str(folder / "judges.yaml"),
        COJUDGE_DUCKDB=str(database),
        COJUDGE_CACHE=str(folder / "cache"),
    )
    from cojudge_assets import cli, driver

    step = driver._run_step
    if args.keep_outputs:
        driver._release_outputs = lambda result: None  # type: ignore[assignment]
    if args.trace:
        import tracemalloc

        tracemalloc.start(8)
    snapshots: list = []
    peaks: list[float] = []

    def measured(defs, instance, run_config, todo, keys, outcome, echo, rebuild=None) -> bool:
        before = status_mb("VmRSS")
        Path("/proc/self/clear_refs").write_text("5")
        started = time.process_time()
        lines: list[str] = []

        def kept(line: str) -> None:
            lines.append(line)
            echo(line)

        ok = step(defs, instance, run_config, todo, keys, outcome, kept, rebuild=rebuild)
        found = RUN_PEAK.search(lines[-1]) if lines else None  # the run's own peak (a child's, with the flag)
        peak = float(found.group(1).replace(",", "")) if found else status_mb("VmHWM")
        cpu = time.process_time() - started
        gc.collect()
        peaks.append(peak)
        count, size = frames_alive()
        cached = duckdb_cached_mb(database)
        used, kept = malloc_mb()
        import pyarrow as pa

        pool = pa.default_memory_pool()
        print(
            f"    glibc malloc: in use {used:,.0f} MB, free but kept {kept:,.0f} MB; python blocks "
            f"{sys.getallocatedblocks():,}; Arrow pool {pool.backend_name}: {pool.bytes_allocated() / 2**20:,.0f} MB "
            f"in use, {pool.max_memory() / 2**20:,.0f} MB most"
        )
        if args.trace:
            import tracemalloc

            snapshots.append(tracemalloc.take_snapshot())
            print(f"    tracemalloc: {tracemalloc.get_traced_memory()[0] / 2**20:,.0f} MB traced")
            if len(snapshots) > 1:
                for stat in snapshots[-1].compare_to(snapshots[-2], "traceback")[:8]:
                    where = stat.traceback.format()[-1].strip()
                    print(f"      {stat.size_diff / 2**20:+.1f} MB {stat.count_diff:+} blocks {where}")
        print(
            f"  {todo[1] or '-'}: this process's rss at start {before:,.0f} MB, the run's peak {peak:,.0f} MB, "
            f"this process's cpu {cpu:.1f} s, peak {status_mb('VmHWM'):,.0f} MB; "
            f"after: rss {status_mb('VmRSS'):,.0f} MB, "
            f"fds on the DuckDB file {open_on(database)}, DuckDB buffer pool "
            f"{'none open' if cached is None else f'{cached:,.0f} MB'}, polars frames alive {count} ({size:,.0f} MB)",
            flush=True,
        )
        return ok

    driver._run_step = measured  # type: ignore[assignment]
    flags = [flag for condition in args.condition or [] for flag in ("--condition", condition)]
    flags += ["--process-per-partition"] if args.process_per_partition else []
    code = cli.main(["materialize", "--force", "--select", args.select, *flags])
    if peaks:
        later = peaks[1:]
        print(
            f"first partition's peak {peaks[0]:,.0f} MB; later ones "
            f"{min(later, default=0):,.0f}-{max(later, default=0):,.0f} MB "
            f"(most above the first: {max(later, default=peaks[0]) - peaks[0]:+,.0f} MB)",
            flush=True,
        )
    return code


if __name__ == "__main__":
    sys.exit(main())
