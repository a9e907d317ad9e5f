"""The estimation group's time on a study's tables, at 1x and 10x.

Usage: .venv/bin/python bench/estimation.py [--duckdb data/cojudge.duckdb] [--scales 1 10] [--repetitions 1000]

Reads predictions and participant_context from a materialized DuckDB file (the demo corpus's:
`cojudge materialize --duckdb <file>`), and times the three assets' core calls as the assets make them
(estimation: estimation_frame + estimate_pass_rates with the pipeline's defaults; labels_saved;
bias_diagnostics: bias_frame + bias_diagnostics + one figure per judge). At scale k the attempts are
replicated k times with new attempt ids and new participants (so trajectories are replicated, not
lengthened). Prints the date, the load average, seconds per step and scale, and the
process's CPU seconds (less sensitive than wall time to a busy machine).
"""

from __future__ import annotations

import argparse
import os
import sys
import tempfile
import time
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import polars as pl  # noqa: E402

from cojudge_assets.core.design.bias import bias_diagnostics, bias_figure, bias_frame  # noqa: E402
from cojudge_assets.core.design.estimation import (  # noqa: E402
    EstimationConfig,
    estimate_pass_rates,
    estimation_frame,
    labels_saved,
)


def replicate(frame: pl.DataFrame, copies: int) -> pl.DataFrame:
    """``copies`` copies of the rows, attempt ids and participants suffixed by the copy number."""
    if copies == 1:
        return frame
    parts = []
    for copy in range(copies):
        suffix = f"#{copy}"
        part = frame.with_columns(pl.col("attempt_uid") + suffix)
        if "participant" in frame.columns:
            part = part.with_columns(pl.col("participant") + suffix)
        parts.append(part)
    return pl.concat(parts)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duckdb", type=Path, default=ROOT / "data" / "cojudge.duckdb")
    parser.add_argument("--scales", type=int, nargs="+", default=[1, 10])
    parser.add_argument("--repetitions", type=int, default=EstimationConfig().repetitions)
    args = parser.parse_args()
    with duckdb.connect(str(args.duckdb), read_only=True) as conn:
        predictions = conn.execute("select * from main.predictions").pl()
        context = conn.execute("select attempt_uid, condition, chars, provenance from main.participant_context").pl()
    config = EstimationConfig(repetitions=args.repetitions)
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f}, {args.duckdb}")
    for scale in args.scales:
        preds, ctx = replicate(predictions, scale), replicate(context, scale)
        attempts = preds["attempt_uid"].n_unique()
        start, cpu = time.perf_counter(), time.process_time()
        table = estimate_pass_rates(estimation_frame(preds), config)
        estimated = time.perf_counter()
        labels_saved(table, alpha=config.alpha)
        saved = time.perf_counter()
        diagnostics = bias_diagnostics(bias_frame(preds, ctx))
        with tempfile.TemporaryDirectory() as folder:
            for judge in sorted(set(diagnostics["judge"].to_list())):
                bias_figure(diagnostics, judge, Path(folder) / f"bias_{judge}.png")
        done, cpu = time.perf_counter(), time.process_time() - cpu
        print(
            f"{scale}x ({attempts} attempts, {len(preds)} predictions): estimation {estimated - start:.1f} s, "
            f"labels_saved {saved - estimated:.2f} s, bias_diagnostics {done - saved:.1f} s; "
            f"group {done - start:.1f} s wall, {cpu:.1f} s CPU"
        )


if __name__ == "__main__":
    main()
