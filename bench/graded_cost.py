"""The graded perturbations' steps against the existing mutants step on the demo corpus, in one run, timed.

Reads the accepted C/C++/Java attempts of the demo corpus (core readers, no Dagster) and re-runs the seeds,
then, with one empty compile and result cache (a temporary folder) shared by all steps:

* ``mutants``: the existing step, as the asset runs it (one site per operator and seed, a rewrite on a share 0.34
  of the seeds);
* ``graded_programs``: candidates made by the rules, verified by execution, balanced (core/graded/verify.py);
* ``graded_metrics``: the reference-based judges' scores of the graded programs and every metric with its
  seed-bootstrap interval (1000 resamples, the asset's default), plus the asked judges' blind answers on the
  graded programs when a materialized DuckDB file holds them (``--duckdb``, default data/cojudge.duckdb);
* the judging the graded programs add to ``perturbation_outputs`` is not run here: its cost is proportional to
  the requests, so the ratio of graded programs to verified mutants is printed beside it.

Each new step's ratio to the mutants step is printed; the target is <= 2x.

    .venv/bin/python bench/graded_cost.py [--duckdb data/cojudge.duckdb]
"""

from __future__ import annotations

import argparse
import shutil
import tempfile
import time
from pathlib import Path

import duckdb
import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.graded.metrics import graded_metrics, judge_scores, reference_scores
from cojudge_assets.core.graded.verify import ceiling_balance, graded_programs, shape
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.perturbation.verify import generate_mutants, mutation_seeds, verify_mutants

ROOT = Path(__file__).resolve().parents[1]
DEMO = ROOT / "data" / "demo"


def _outputs(path: Path) -> pl.DataFrame | None:
    if not path.exists():
        return None
    with duckdb.connect(str(path), read_only=True) as conn:
        names = {r[0] for r in conn.execute("select table_name from information_schema.tables").fetchall()}
        if "perturbation_outputs" not in names:
            return None
        return conn.execute(
            "select judge, attempt_uid, status, p_accept, s_algo, s_robust from main.perturbation_outputs"
        ).pl()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, default=ROOT / "data" / "cojudge.duckdb")
    args = parser.parse_args()
    problems = read_problem_table(DEMO, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(DEMO, "pages", names, contest_settings(DEMO)).attempts
    packages = read_problems(DEMO / "problems")
    cache = Path(tempfile.mkdtemp(prefix="cojudge-bench-graded-"))
    try:
        judge = ContestJudge(cache)
        started = time.perf_counter()
        seeds = mutation_seeds(attempts, packages, judge)
        seeded = time.perf_counter()
        made = generate_mutants(seeds, max_per_operator=1, rewrite_share=0.34)
        mutants = verify_mutants(seeds, made, packages, judge)
        mutated = time.perf_counter()
        table = graded_programs(seeds, packages, judge)
        graded_at = time.perf_counter()
        scores = pl.concat([judge_scores(table, _outputs(args.duckdb)), reference_scores(table, seeds)])
        metrics = graded_metrics(scores)
        scored = time.perf_counter()
    finally:
        shutil.rmtree(cache, ignore_errors=True)
    mutants_s, graded_s, metrics_s = mutated - seeded, graded_at - mutated, scored - graded_at
    verified = int(mutants["verified"].sum())
    made_programs = int((table["effect"] != "skipped").sum())
    run = int((~table["effect"].is_in(["skipped", "not_run"])).sum())
    graded = int(table["graded"].sum())
    print(f"demo: {int(seeds['usable'].sum())} usable seeds re-run in {seeded - started:.1f} s (shared, cold cache)")
    print(f"mutants          {mutants_s:7.1f} s  {len(mutants)} mutants, {verified} verified")
    print(
        f"graded_programs  {graded_s:7.1f} s  {made_programs} programs made, {run} run, "
        f"{int(table['accepted'].sum())} accepted, "
        f"{graded} graded  -> {graded_s / mutants_s:.2f}x the mutants step"
    )
    print(
        f"graded_metrics   {metrics_s:7.1f} s  {scores['judge'].n_unique()} judges, "
        f"{len(metrics)} metric rows  -> {metrics_s / mutants_s:.2f}x the mutants step"
    )
    print(
        f"graded judging   requests added to perturbation_outputs: {graded} graded programs vs {verified} verified "
        f"mutants -> {graded / max(verified, 1):.2f}x the mutants' judging"
    )
    figures = shape(table)
    print(
        f"shape: Spearman(edit_size, ceiling) {figures['spearman_edit_size_ceiling']:+.3f}, largest gap from 1/6 "
        f"{figures['max_share_gap']:.3f}, largest rule share of its ceiling {figures['max_rule_ceiling_share']:.2f}"
    )
    with pl.Config(tbl_rows=-1, tbl_cols=-1, fmt_str_lengths=300, tbl_width_chars=250):
        print(ceiling_balance(table))


if __name__ == "__main__":
    main()
