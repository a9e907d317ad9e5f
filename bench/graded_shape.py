"""The graded set's shape on a corpus: edit size against the ceiling, the balance, the largest rule share.

Issue 36's done-when figures for ``graded_programs`` (core/graded/verify.py), printed for each corpus given
(default: the demo, and the shared itsp-c sample when ../shared/corpora/itsp-c exists):

* Spearman's rho of ``edit_size`` (Levenshtein to the seed) with the ceiling over the graded programs: at most 0.1;
* each ceiling 0..5's share of the graded set: 1/6 +- 5%;
* the largest share of its ceiling any rule holds: at most 25%, or ``graded_balance``'s note says why;
* the step's wall and CPU seconds (this process and the sandboxed children it waited for), with a cold
  compile and result cache (a temporary folder), after the seeds are re-run.

    nice -n 10 .venv/bin/python bench/graded_shape.py [CORPUS ...]   (layout: pages if pages/ exists, else progsnap2)
    .venv/bin/python bench/graded_shape.py --duckdb FILE [--rebalance]   (a materialized graded_programs table;
        --rebalance: its verified programs balanced again by this commit's balance(), nothing re-run)
"""

from __future__ import annotations

import argparse
import os
import shutil
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.graded.verify import balance, ceiling_balance, graded_programs, rule_yield, shape
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.perturbation.verify import mutation_seeds

ROOT = Path(__file__).resolve().parents[1]
DEFAULTS = [ROOT / "data" / "demo", ROOT.parent / "shared" / "corpora" / "itsp-c"]


def _cpu() -> float:
    t = os.times()
    return t.user + t.system + t.children_user + t.children_system


def measure(corpus: Path) -> pl.DataFrame:
    layout = "pages" if (corpus / "pages").is_dir() else "progsnap2"
    problems = read_problem_table(corpus, layout)
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(corpus, layout, names, contest_settings(corpus)).attempts
    packages = read_problems(corpus / "problems")
    cache = Path(tempfile.mkdtemp(prefix="cojudge-bench-graded-shape-"))
    try:
        judge = ContestJudge(cache)
        seeds = mutation_seeds(attempts, packages, judge)
        wall, cpu = time.perf_counter(), _cpu()
        table = graded_programs(seeds, packages, judge)
        wall, cpu = time.perf_counter() - wall, _cpu() - cpu
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    print(f"== {corpus.name} ({layout}): {int(seeds['usable'].sum())} usable seeds, {len(packages)} problems")
    print(f"graded_programs: {wall:.1f} s wall, {cpu:.1f} s CPU (cold caches; load {os.getloadavg()[0]:.1f})")
    report(table)
    return table


def report(table: pl.DataFrame) -> None:
    figures = shape(table)
    print(
        f"graded {figures['programs']:.0f}; Spearman(edit_size, ceiling) = "
        f"{figures['spearman_edit_size_ceiling']:+.3f} (target <= 0.1); largest gap from 1/6 = "
        f"{figures['max_share_gap']:.3f} (target <= 0.05); largest rule share of its ceiling = "
        f"{figures['max_rule_ceiling_share']:.2f} (target <= 0.25 or a note)"
    )
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=400, tbl_width_chars=250):
        print(ceiling_balance(table))
        print(
            rule_yield(table).select(
                "rule", "applied", "not_run", "accepted", "skipped", "graded", "ceiling_share", "yield"
            )
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("corpora", nargs="*", type=Path)
    parser.add_argument("--duckdb", type=Path, help="read graded_programs from this materialized DuckDB file")
    parser.add_argument("--rebalance", action="store_true", help="with --duckdb: apply this commit's balance()")
    parser.add_argument("--save", type=Path, help="write each corpus's graded_programs to FOLDER/<corpus>.parquet")
    args = parser.parse_args()
    if args.duckdb:
        with duckdb.connect(str(args.duckdb), read_only=True) as conn:
            print(f"== {args.duckdb}: the materialized graded_programs")
            table = conn.execute("select * from main.graded_programs").pl()
        report(balance(table) if args.rebalance else table)
        return
    for corpus in args.corpora or [c for c in DEFAULTS if c.is_dir()]:
        table = measure(corpus)
        if args.save:
            args.save.mkdir(parents=True, exist_ok=True)
            table.write_parquet(args.save / f"{corpus.name}.parquet")


if __name__ == "__main__":
    main()
