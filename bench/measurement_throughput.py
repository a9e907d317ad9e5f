"""The whole measurement group timed on synthetic predictions, at 1x, 10x and 100x the study's size.

Usage: .venv/bin/python bench/measurement_throughput.py [--attempts 517] [--scales 1 10 100] [--resamples 2000]

4 judges x 3 conditions x N attempts (the study: N = 517 in 160-odd trajectories of 13 problems),
predictions on a coarse 0.01 grid like LLM judges answer, trajectories of about 3 attempts.
core.measurement.measure computes every table (judge_metrics, scale_validity, agreement,
condition_effects, panel, per_problem, consistency, error_profile, recalibration) with
--resamples trajectory resamples and as many problem resamples. Prints seconds per scale and the
growth factor against the previous scale.
"""

from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from cojudge_assets.core.constants import CONDITIONS  # noqa: E402
from cojudge_assets.core.measurement.measure import MeasurementConfig, measure  # noqa: E402

JUDGES = ("judge-a", "judge-b", "judge-c", "judge-d")


def synthetic(n: int, seed: int = 0) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    trajectory = np.sort(rng.integers(0, max(1, n // 3), n))
    participant = trajectory // 13
    problem = trajectory % 13
    truth = rng.random(n) < 0.3
    uids = [f"a{i:07d}" for i in range(n)]
    frames = []
    for j, judge in enumerate(JUDGES):
        for condition in CONDITIONS:
            p = np.clip(np.round(np.where(truth, 0.65, 0.35) + rng.normal(0, 0.15 + 0.1 * j, n), 2), 0, 1)
            frames.append(
                pl.DataFrame(
                    {
                        "attempt_uid": uids,
                        "judge": judge,
                        "condition": condition,
                        "p_accept": p,
                        "y": truth.astype(np.int64),
                        "participant": [f"s{x}" for x in participant],
                        "problem_id": [f"p{x}" for x in problem],
                        "turn": np.arange(n),
                        "evidence": rng.random(n) < 0.9,
                        "code": [f"code {i // 2}" for i in range(n)],
                    }
                )
            )
    return pl.concat(frames)


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=517)
    parser.add_argument("--scales", type=int, nargs="*", default=[1, 10, 100])
    parser.add_argument("--resamples", type=int, default=2000)
    args = parser.parse_args()
    config = MeasurementConfig(resamples=args.resamples, problem_resamples=args.resamples)
    previous, previous_scale = None, None
    print(
        f"{len(JUDGES)} judges x {len(CONDITIONS)} conditions, {args.resamples} trajectory + "
        f"{args.resamples} problem resamples"
    )
    for scale in args.scales:
        n = args.attempts * scale
        table = synthetic(n)
        started = time.perf_counter()
        tables = measure(table, config)
        elapsed = time.perf_counter() - started
        growth = f"x{elapsed / previous:.1f} for x{scale // previous_scale} attempts" if previous else ""
        print(f"{n:>8} attempts: {elapsed:8.2f} s  ({sum(len(t) for t in tables.values())} rows)  {growth}")
        previous, previous_scale = elapsed, scale


if __name__ == "__main__":
    main()
