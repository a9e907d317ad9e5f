"""PPI++'s interval three ways, over repeated samples: which keeps its 95% promise with few groups?

Usage: .venv/bin/python bench/ppi_intervals.py [--duckdb data/cojudge.duckdb] [--repetitions 2000]

* ``ppi``: the study's interval: the design-based t interval of the regression estimator (CR1 with the slope
  counted, t on g - 1 df, finite-population correction; core/design/estimation.py);
* ``ppi_z_cr0``: ppi_python's ``ppi_mean_ci`` (a z interval, CR0 over groups, no correction), the interval
  before issue 26;
* ``ppi_bootstrap``: a percentile cluster bootstrap over the labelled groups (lam re-tuned in every resample,
  200 resamples), its ends pulled towards the estimate by sqrt(1 - g/G).

On synthetic populations of 1,000 trajectories of 4 correlated attempts (8 populations, 25 labelled
trajectories), and, with ``--duckdb``, on every judge x condition of a materialized study at its budgets.
Prints coverage (pooled over the populations) with its Monte Carlo standard error, and the mean width.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import duckdb  # noqa: E402
import numpy as np  # noqa: E402
import polars as pl  # noqa: E402

from cojudge_assets.core.design.estimation import EstimationConfig, estimate_pass_rates, estimation_frame, simulate_cell  # noqa: E402

METHODS = ("ppi", "ppi_z_cr0", "ppi_bootstrap", "labels")


def population(n_groups: int, seed: int):
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), 4)
    effect = rng.normal(0, 1.0, n_groups)[groups]
    y = (rng.random(len(groups)) < 1 / (1 + np.exp(-(effect - 0.5)))).astype(float)
    p = np.clip(0.35 * y + 0.3 + 0.1 * effect + rng.normal(0, 0.15, len(groups)), 0, 1)
    return y, p, groups


def show(label: str, table: pl.DataFrame) -> None:
    pooled = (
        table.filter(pl.col("method").is_in(METHODS) & pl.col("coverage").is_not_null())
        .group_by("method", "n")
        .agg(
            ((pl.col("coverage") * pl.col("reps")).sum() / pl.col("reps").sum()).alias("coverage"),
            pl.col("reps").sum(),
            pl.col("width").mean(),
        )
        .sort("n", "method")
    )
    for r in pooled.iter_rows(named=True):
        se = np.sqrt(r["coverage"] * (1 - r["coverage"]) / r["reps"])
        print(
            f"{label} n={r['n']:<4} {r['method']:<14} coverage {r['coverage']:.3f} ± {se:.3f}  width {r['width']:.3f}"
        )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duckdb", type=Path)
    parser.add_argument("--repetitions", type=int, default=2000)
    parser.add_argument("--condition", default="blind", help="the study's condition to compare on")
    parser.add_argument("--skip-synthetic", action="store_true")
    args = parser.parse_args()
    if not args.skip_synthetic:
        parts = []
        for seed in range(8):
            y, p, groups = population(1000, seed)
            config = EstimationConfig(budgets=(25, 50), repetitions=args.repetitions, seed=seed, variants=True)
            parts.append(simulate_cell(y, p, groups, config=config))
        show("synthetic G=1000", pl.concat(parts))
    if args.duckdb:
        with duckdb.connect(str(args.duckdb), read_only=True) as conn:
            predictions = conn.execute("select * from main.predictions where condition = ?", [args.condition]).pl()
        config = EstimationConfig(repetitions=args.repetitions, variants=True)
        table = estimate_pass_rates(estimation_frame(predictions), config).filter(pl.col("participant").is_null())
        for (judge, condition), cell in table.group_by("judge", "condition", maintain_order=True):
            show(f"{judge}/{condition}", cell)


if __name__ == "__main__":
    main()
