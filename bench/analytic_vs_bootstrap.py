"""Analytic against bootstrap intervals on a measured study's stored predictions (by default the demo's).

Usage: .venv/bin/python bench/analytic_vs_bootstrap.py [--duckdb data/cojudge.duckdb] [--resamples 2000] [--findings]

Reads the predictions, the attempts asked about and the judges' outcomes from the DuckDB file a run wrote
(``cojudge materialize``; ingest and judging are enough), and measures them twice with the measurement's own
code (core/measurement/measure.py): once with every interval analytic (``analytic_from`` at 0, the analytic path
forced below its switch point), once with every interval
bootstrapped (the trajectory bootstrap, ``--resamples`` resamples, the measurement's seed). Prints, per row that
has an interval both ways, the two widths and their ratio (analytic / bootstrap), a mark on a ratio more than
10% from 1, and a count. The point estimates are the same both ways (checked). ``--findings`` compares the
findings' intervals instead (core/design/robustness.py: trajectory and problem resampling, the never-inspected part;
the equal-weights interval resamples problems either way), the finding's kind and other side in the metric column.
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

from cojudge_assets.core.measurement.measure import ANALYTIC, BOOTSTRAP, MeasurementConfig, measure  # noqa: E402
from cojudge_assets.core.measurement.predictions import (  # noqa: E402
    has_table,
    read_outcomes,
    read_predictions,
    read_universe,
)

TABLES = ("judge_metrics", "scale_validity", "agreement", "condition_effects", "panel")
KEY = ["table", "judge", "condition", "metric"]


def widths(tables: dict[str, pl.DataFrame], method: str) -> pl.DataFrame:
    """One row per figure with an interval made by ``method``: its value and width."""
    rows = [
        table.filter(pl.col("ci_method") == method)
        .select(pl.lit(name).alias("table"), "judge", "condition", "metric", "value", (pl.col("hi") - pl.col("lo")))
        .rename({"hi": "width"})
        for name, table in tables.items()
    ]
    return pl.concat(rows)


SCHEME_PREFIXES = {"trajectory": "", "problem": "problem_", "never_inspected": "never_inspected_"}


def findings_widths(predictions: pl.DataFrame, conn_path: Path, resamples: int) -> pl.DataFrame:
    """The findings (core/design/robustness.py) twice, every interval analytic (``analytic_from`` 0) and every one
    bootstrapped: one row per finding and scheme with both widths. The design split is the stored one, or, on a
    run that did not make it, the one the design group would make."""
    from cojudge_assets.core.design import robustness as rb
    from cojudge_assets.core.design.split import assign_split

    with duckdb.connect(str(conn_path), read_only=True) as conn:
        stored = has_table(conn, "design_split")
        split = conn.execute("select * from main.design_split").pl() if stored else assign_split(read_universe(conn))
    tables = {
        method: rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=resamples, analytic_from=start))
        for method, start in (("analytic", 0), ("bootstrap", None))
    }
    rows = []
    key = ["kind", "judge", "condition", "versus"]
    for scheme, prefix in SCHEME_PREFIXES.items():
        sides = [
            table.filter(pl.col(f"{prefix}ci_method") == method).select(
                *key,
                pl.col(f"{prefix}estimate").alias("value"),
                (pl.col(f"{prefix}hi") - pl.col(f"{prefix}lo")).alias("width"),
            )
            for method, table in tables.items()
        ]
        joined = sides[0].join(sides[1], on=key, suffix="_boot")
        rows.append(joined.with_columns(pl.lit(f"findings {scheme}").alias("table")))
    return pl.concat(rows).select(
        "table", "judge", "condition", (pl.col("kind") + " vs " + pl.col("versus")).alias("metric"), "value", "width",
        "value_boot", "width_boot",
    )  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--duckdb", default=str(ROOT / "data" / "cojudge.duckdb"))
    parser.add_argument("--resamples", type=int, default=2000)
    parser.add_argument(
        "--findings",
        action="store_true",
        help="the findings' intervals (trajectory, problem, never-inspected) instead of the measurement's",
    )
    args = parser.parse_args()
    path = Path(args.duckdb)
    if not path.is_file():
        raise SystemExit(f"{path}: no such DuckDB file (run `cojudge materialize --duckdb {path}` first)")
    with duckdb.connect(str(path), read_only=True) as conn:
        predictions, universe, outcomes = read_predictions(conn), read_universe(conn), read_outcomes(conn)
    if predictions.is_empty():
        raise SystemExit(f"{path}: no judge predictions (table judge_outputs missing or empty)")
    if args.findings:
        report(findings_widths(predictions, path, args.resamples), predictions, universe, path, args.resamples)
        return
    common = {"resamples": args.resamples, "problem_resamples": 10}
    analytic = measure(
        predictions,
        MeasurementConfig(**common, analytic_from=0),
        outcomes,
        attempts=universe,
        tables=TABLES,
    )
    boot = measure(
        predictions,
        MeasurementConfig(**common, analytic_from=10**12),
        outcomes,
        attempts=universe,
        tables=TABLES,
    )
    both = widths(analytic, ANALYTIC).join(widths(boot, BOOTSTRAP), on=KEY, suffix="_boot")
    report(both, predictions, universe, path, args.resamples)


def report(both: pl.DataFrame, predictions: pl.DataFrame, universe: pl.DataFrame, path: Path, resamples: int) -> None:
    """Print each row's two widths and their ratio, and the counts."""
    if not both.filter((pl.col("value") - pl.col("value_boot")).abs() > 1e-12).is_empty():
        raise SystemExit("the point estimates differ between the two runs: a bug, not a method difference")
    attempts = universe.height
    print(
        f"{path}: {predictions.height} predictions of {attempts} attempts, "
        f"{predictions.select('judge', 'condition').n_unique()} judge x condition cells; bootstrap "
        f"{resamples} resamples; width = hi - lo of the 95% interval"
    )
    print(f"{'table':<26}{'judge':<28}{'condition':<28}{'metric':<36}{'analytic':>10}{'bootstrap':>11}{'ratio':>8}")
    within = apart = degenerate = 0
    for row in both.sort(KEY).iter_rows(named=True):
        # a width under 1e-12 is 0 (rho = 1 between two identical conditions: rounding in both methods)
        a, b = (0.0 if abs(x) < 1e-12 else x for x in (row["width"], row["width_boot"]))
        if not (np.isfinite(a) and np.isfinite(b)) or b == 0:
            ratio, mark = "  -", "  (a width of 0 or nan)" if not (a == 0 and b == 0) else "  (both 0)"
            degenerate += 1
        else:
            far = abs(a / b - 1) > 0.10
            ratio, mark = f"{a / b:8.3f}", "  * more than 10% apart" if far else ""
            apart += far
            within += not far
        print(
            f"{row['table']:<26}{row['judge']:<28}{row['condition']:<28}{row['metric']:<36}"
            f"{a:>10.4f}{b:>11.4f}{ratio:>8}{mark}"
        )
    print(f"{within} rows within 10% of the bootstrap's width, {apart} more than 10% apart, {degenerate} degenerate")


if __name__ == "__main__":
    main()
