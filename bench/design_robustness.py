"""Seconds the design group's logic adds to a run: the split, contamination and findings on a stored study.

Usage: .venv/bin/python bench/design_robustness.py --duckdb PATH [--resamples 1000] [--repeat 3]

Reads the attempts, predictions and measurement tables of a DuckDB file a `cojudge materialize` run wrote, and times
core/design_split.assign_split, core/robustness.contamination and core/robustness.findings (best of --repeat each).
Dagster's per-step overhead (loading inputs, writing tables) comes on top.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402

from cojudge_assets.core.design.robustness import RobustnessConfig, contamination, findings  # noqa: E402
from cojudge_assets.core.design.split import assign_split  # noqa: E402

TABLES = ("attempts", "predictions", "judge_metrics", "condition_effects", "panel", "per_problem")


def best(fn, repeat: int) -> float:
    times = []
    for _ in range(repeat):
        started = time.perf_counter()
        fn()
        times.append(time.perf_counter() - started)
    return min(times)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--resamples", type=int, default=RobustnessConfig().resamples)
    parser.add_argument("--repeat", type=int, default=3)
    args = parser.parse_args()
    with duckdb.connect(str(args.duckdb), read_only=True) as conn:
        t = {name: conn.execute(f"select * from main.{name}").pl() for name in TABLES}
    config = RobustnessConfig(resamples=args.resamples)
    split = assign_split(t["attempts"])
    cells = t["predictions"].select("judge", "condition").n_unique()
    print(f"{args.duckdb}: {len(t['attempts'])} attempts, {len(split)} groups, {cells} judge x condition cells")
    print(f"assign_split   {best(lambda: assign_split(t['attempts']), args.repeat):7.2f} s")
    print(f"contamination  {best(lambda: contamination(t['predictions'], split, config), args.repeat):7.2f} s")
    stored = {k: t[k] for k in ("judge_metrics", "condition_effects", "panel", "per_problem")}
    print(
        f"findings       {best(lambda: findings(t['predictions'], split, **stored, config=config), args.repeat):7.2f} s"
    )


if __name__ == "__main__":
    main()
