"""estimation, bias_diagnostics and contamination alone: peak RSS and CPU of each computation on a built study,
its predictions replicated to reach 10^6 attempts.

Reads a finished study's DuckDB file (``bench/scale_rehearsal.py --keep``) the way each asset gets its inputs
(the columns its ``AssetIn`` names): with one copy (the default), through the reader each asset gets
(core/frames.py ``duckdb_table_reader``, read-only: a judge x condition at a time, as the assets read since issue
33's cell readers); with ``--copies k``, loaded whole and replicated k times (every attempt_uid and participant
suffixed with the copy, so k copies are k times the attempts, trajectories and participants, the shape of a study k
times larger; the copies are held in memory, which the assets no longer do). Then it computes the table the way the
asset does (core/design: ``estimate_cells``, ``bias_table``, ``contamination``, a cell at a time), no Dagster in the
process. One child process per asset (os.wait4: its own peak RSS and CPU); each prints the RSS once its inputs
are loaded and the CPU of the computation. A step of ``cojudge materialize`` adds Dagster's ~0.35 GB.

    .venv/bin/python bench/estimation_memory.py --duckdb FILE [--copies 10] [--assets estimation,bias_diagnostics]
"""

from __future__ import annotations

import argparse
import os
import resource
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))
sys.path.insert(0, str(Path(__file__).resolve().parent))

import duckdb  # noqa: E402
import polars as pl  # noqa: E402
from step_memory import run_child  # noqa: E402  (a sibling script, run as a file)

from cojudge_assets.core.design.bias import CONTEXT_COLUMNS  # noqa: E402
from cojudge_assets.core.design.estimation import PREDICTION_COLUMNS as ESTIMATION_COLUMNS  # noqa: E402
from cojudge_assets.core.design.split import group_keys  # noqa: E402
from cojudge_assets.core.frames import duckdb_table_reader  # noqa: E402
from cojudge_assets.core.measurement.predictions import scored  # noqa: E402

ASSETS = ("estimation", "bias_diagnostics", "contamination")
PREDICTION_COLUMNS = {
    "estimation": list(ESTIMATION_COLUMNS),
    "bias_diagnostics": scored("language", "verdict", "code_lines", "code_tokens")["columns"],
    "contamination": scored()["columns"],
}


def peak_mb() -> float:
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


def _copies(frame: pl.DataFrame, copies: int, keys: tuple[str, ...]) -> pl.DataFrame:
    if copies == 1:
        return frame
    return pl.concat(
        [frame.with_columns(*(pl.col(k) + pl.lit(f"~{i}") for k in keys if k in frame.columns)) for i in range(copies)]
    )


def _load(conn: duckdb.DuckDBPyConnection, table: str, columns: list[str]) -> pl.DataFrame:
    return pl.DataFrame(conn.execute(f"select {', '.join(columns)} from main.{table}").arrow())


def _readers(db: Path, asset: str) -> tuple:
    """The asset's inputs as the readers it gets (a table read a judge x condition, or a condition, at a time)."""
    predictions = duckdb_table_reader(
        str(db), "main.predictions", "predictions", PREDICTION_COLUMNS[asset], read_only=True
    )
    context = split = None
    if asset == "bias_diagnostics":
        context = duckdb_table_reader(
            str(db), "main.participant_context", "participant_context", list(CONTEXT_COLUMNS), read_only=True
        )
    if asset == "contamination":
        with duckdb.connect(str(db), read_only=True) as conn:
            split = conn.execute("select * from main.design_split").pl()
    return predictions, context, split


def child(db: Path, asset: str, copies: int) -> None:
    started = time.process_time()
    if copies == 1:
        predictions, context, split = _readers(db, asset)
        print(f"{asset}: readers of a judge x condition at a time, RSS peak {peak_mb():.0f} MB", flush=True)
        _compute(asset, predictions, context, split, time.process_time())
        return
    with duckdb.connect(str(db), read_only=True) as conn:
        conn.execute("set enable_progress_bar = false")
        predictions = _load(conn, "predictions", PREDICTION_COLUMNS[asset])
        predictions = _copies(predictions, copies, ("attempt_uid", "participant"))
        context = split = None
        if asset == "bias_diagnostics":
            context = _copies(_load(conn, "participant_context", list(CONTEXT_COLUMNS)), copies, ("attempt_uid",))
        if asset == "contamination":
            split = conn.execute("select * from main.design_split").pl()
    if split is not None and copies > 1:
        split = _copies(split, copies, ("participant",))
        split = split.with_columns(group_keys(split, split["unit"][0]).alias("group_key"))
    loaded = time.process_time()
    print(
        f"{asset}: loaded {len(predictions)} predictions ({predictions['attempt_uid'].n_unique()} attempts): "
        f"{loaded - started:.1f} CPU-s, RSS peak {peak_mb():.0f} MB",
        flush=True,
    )
    _compute(asset, predictions, context, split, loaded)


def _compute(asset: str, predictions, context, split, loaded: float) -> None:
    if asset == "estimation":
        from cojudge_assets.core.design.estimation import estimate_cells

        table = estimate_cells(predictions)
    elif asset == "bias_diagnostics":
        from cojudge_assets.core.design.bias import bias_table

        table = bias_table(predictions, context)  # a cell's frame at a time, as the asset (not every cell's frame)
    else:
        from cojudge_assets.core.design.robustness import contamination

        assert split is not None
        table = contamination(predictions, split)
    print(f"{asset}: {len(table)} rows, {time.process_time() - loaded:.1f} CPU-s, peak {peak_mb():.0f} MB", flush=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--copies", type=int, default=1)
    parser.add_argument("--assets", default=",".join(ASSETS))
    parser.add_argument("--child", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if not args.duckdb.exists():
        raise SystemExit(f"--duckdb {args.duckdb}: no such file")
    if args.copies < 1:
        raise SystemExit(f"--copies: expected a positive integer, got {args.copies}")
    if args.child:
        child(args.duckdb, args.child, args.copies)
        return
    assets = args.assets.split(",")
    unknown = set(assets) - set(ASSETS)
    if unknown:
        raise SystemExit(f"--assets: expected names among {', '.join(ASSETS)}, got {', '.join(sorted(unknown))}")
    print(f"{'asset':<18} {'copies':>6} {'cpu s':>8} {'peak MB':>8}  (child process, inputs and computation)")
    with tempfile.TemporaryDirectory() as tmp:
        for asset in assets:
            log = Path(tmp) / f"{asset}.log"
            command = [sys.executable, __file__, "--duckdb", str(args.duckdb), "--copies", str(args.copies)]
            code, _, cpu, peak = run_child(command + ["--child", asset], dict(os.environ), log)
            for line in log.read_text(errors="replace").splitlines():
                print(f"    {line}")
            print(f"{asset:<18} {args.copies:>6} {cpu:>8.1f} {peak:>8.0f}  {'ok' if code == 0 else f'FAILED ({code})'}")


if __name__ == "__main__":
    main()
