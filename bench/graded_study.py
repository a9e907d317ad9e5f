"""The graded study (AXIOM's Table III) on a corpus, without Dagster: programs, local judges, metrics, stored.

For ``demo`` (data/demo, pages) or ``itsp-c`` (../shared/corpora/itsp-c, progsnap2), through the same core
functions as the assets:

1. ``mutation_seeds`` and ``graded_programs`` (core/graded/verify.py), cached as Parquet under ``--cache`` so a
   change of the metrics does not re-run the programs (``--rebuild`` makes them again);
2. the local judges sample-exec and static-rubric on every graded program, blind and asked for AXIOM's 0-5
   score, as the graded requests ask them (judges/local.py), as ``perturbation_outputs`` would hold them; hosted
   judges are not asked here (cached as Parquet too; a cache without the score is made again);
3. ``graded_scores`` then ``graded_metrics`` (core/graded/metrics.py), the reference-based judges against both
   references, each step timed.

It prints Table III and the lines docs/methodology.md quotes (``figures_markdown``), and with ``--store`` writes
the metric table and the edit sizes per ceiling to ``docs/figures/graded-<corpus>.csv`` and
``graded-<corpus>-edit-size.csv``: the stored tables docs/methodology.md quotes, which
cojudge_tests/core/test_methodology_graded_figures.py ties to the text. ``--measure STEP`` runs one step alone in
a child process and prints its wall time, CPU time and peak RSS (os.wait4), as bench/step_memory.py does for a
materialized DuckDB file.

    nice -n 10 .venv/bin/python bench/graded_study.py --corpus demo [--store]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time
from pathlib import Path

import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.graded.metrics import (
    edit_size_by_ceiling,
    figures_markdown,
    graded_metrics,
    score_programs,
    table_iii,
    with_edit_size,
)
from cojudge_assets.core.graded.verify import ceiling_balance, graded_programs
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.perturbation.verify import mutation_seeds

ROOT = Path(__file__).resolve().parents[1]
CORPORA = {
    "demo": (ROOT / "data" / "demo", "pages"),
    "itsp-c": (ROOT.parent / "shared" / "corpora" / "itsp-c", "progsnap2"),
}
FIGURES = ROOT / "docs" / "figures"


def _cpu() -> float:
    """User + system seconds of this process and of the processes it waited for (the sandbox's)."""
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _programs(name: str, cache: Path, rebuild: bool) -> tuple[pl.DataFrame, pl.DataFrame, dict]:
    corpus, layout = CORPORA[name]
    packages = read_problems(corpus / "problems")
    seeds_path, programs_path = cache / f"{name}-seeds.parquet", cache / f"{name}-programs.parquet"
    if seeds_path.exists() and programs_path.exists() and not rebuild:
        return pl.read_parquet(seeds_path), pl.read_parquet(programs_path), packages
    problems = read_problem_table(corpus, layout)
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(corpus, layout, names, contest_settings(corpus)).attempts
    judge = ContestJudge(cache / "judge-cache")
    started, cpu = time.perf_counter(), _cpu()
    seeds = mutation_seeds(attempts, packages, judge)
    seeded, seeds_cpu = time.perf_counter(), _cpu()
    table = graded_programs(seeds, packages, judge, progress=print)
    run = int((~table["effect"].is_in(["skipped", "not_run"])).sum())
    print(
        f"{name}: seeds re-run in {seeded - started:.1f} s wall, {seeds_cpu - cpu:.1f} s CPU; graded programs "
        f"in {time.perf_counter() - seeded:.1f} s wall, {_cpu() - seeds_cpu:.1f} s CPU (this process and the "
        f"sandbox's), {run} candidates run of {int((table['effect'] != 'skipped').sum())}, "
        f"{int(table['graded'].sum())} graded; load average {os.getloadavg()[0]:.1f}"
    )
    cache.mkdir(parents=True, exist_ok=True)
    seeds.write_parquet(seeds_path)
    table.write_parquet(programs_path)
    return seeds, table, packages


def _local_outputs(name: str, table: pl.DataFrame, packages: dict, cache: Path) -> pl.DataFrame:
    """sample-exec and static-rubric on every graded program, blind, cached by program_uid."""
    from cojudge_assets.core.judging.models import validate_answer
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer, StaticRubricScorer

    path = cache / f"{name}-local-outputs.parquet"
    graded = table.filter(pl.col("graded"))
    if path.exists():
        stored = pl.read_parquet(path)
        answered = stored.filter(pl.col("status") == "ok")
        if set(stored["attempt_uid"].to_list()) >= set(graded["program_uid"].to_list()) and (
            "score" in stored.columns and answered["score"].null_count() == 0
        ):
            return stored
    scorers = {
        "sample-exec": SampleExecScorer(ContestJudge(cache / "judge-cache")),
        "static-rubric": StaticRubricScorer(),
    }
    rows = []
    for program in graded.iter_rows(named=True):
        statement = packages[program["problem_id"]].statement
        parts = PromptParts(program["problem_id"], program["language"], statement, program["code"], "", True)
        for judge, scorer in scorers.items():
            checked = validate_answer(scorer.score(parts), require_score=True)
            answer = checked.output
            rows.append(
                {
                    "judge": judge,
                    "attempt_uid": program["program_uid"],
                    "status": "ok" if answer else ("abstained" if checked.abstained else "failed"),
                    "p_accept": answer.p_accept if answer else None,
                    "s_algo": answer.s_algo if answer else None,
                    "s_robust": answer.s_robust if answer else None,
                    "score": getattr(answer, "score", None) if answer else None,
                }
            )
    schema = {"judge": pl.String, "attempt_uid": pl.String, "status": pl.String, "p_accept": pl.Float64}
    schema |= {"s_algo": pl.Int64, "s_robust": pl.Int64, "score": pl.Int64}
    outputs = pl.DataFrame(rows, schema=schema)
    outputs.write_parquet(path)
    return outputs


def _step(table: pl.DataFrame, seeds: pl.DataFrame, outputs: pl.DataFrame | None, timings: dict | None = None):
    """What the ``graded_scores`` and ``graded_metrics`` assets do (defs/perturbation/graded.py), without Dagster,
    each step's wall and CPU seconds in ``timings``."""
    timings = {} if timings is None else timings
    started, cpu = time.perf_counter(), time.process_time()
    scores = score_programs(table, seeds, outputs)
    timings["graded_scores"] = (time.perf_counter() - started, time.process_time() - cpu)
    started, cpu = time.perf_counter(), time.process_time()
    metrics = graded_metrics(scores)
    timings["graded_metrics"] = (time.perf_counter() - started, time.process_time() - cpu)
    return scores, metrics


def _scores(args, table, seeds, outputs) -> pl.DataFrame:
    """graded_scores, cached beside the programs (the metrics step's input, as the asset reads it)."""
    path = args.cache / f"{args.corpus}-scores.parquet"
    if path.exists():
        return pl.read_parquet(path)
    scores = score_programs(table, seeds, outputs)
    scores.write_parquet(path)
    return scores


def _measure(args) -> None:
    """The step in a child process: its wall time, CPU time (user + system) and peak RSS from os.wait4."""
    command = [sys.executable, __file__, "--corpus", args.corpus, "--cache", str(args.cache), "--child", args.measure]
    if args.no_local:
        command.append("--no-local")
    started = time.perf_counter()
    child = subprocess.Popen(command)
    _, status, usage = os.wait4(child.pid, 0)
    wall = time.perf_counter() - started
    print(
        f"{args.measure} step ({args.corpus}, child process, loading the cached tables included): "
        f"wall {wall:.1f} s, CPU {usage.ru_utime + usage.ru_stime:.1f} s, peak RSS {usage.ru_maxrss / 1024:.0f} MB, "
        f"exit {os.waitstatus_to_exitcode(status)}; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores"
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--corpus", choices=sorted(CORPORA), default="demo")
    parser.add_argument("--cache", type=Path, default=Path("/tmp/cojudge-graded-study"))
    parser.add_argument("--rebuild", action="store_true", help="make the graded programs again")
    parser.add_argument("--no-local", action="store_true", help="the reference-based judges only")
    parser.add_argument("--store", action="store_true", help=f"write the metric tables under {FIGURES}")
    parser.add_argument(
        "--measure", choices=["graded_scores", "graded_metrics"], help="time one step alone in a child process"
    )
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("step", nargs="?", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.measure:
        return _measure(args)
    seeds, table, packages = _programs(args.corpus, args.cache, args.rebuild)
    outputs = None if args.no_local else _local_outputs(args.corpus, table, packages, args.cache)
    if args.child:  # the one step measured; the other's input read or made before the clock starts
        if args.step == "graded_scores":
            score_programs(table, seeds, outputs)
        else:
            graded_metrics(_scores(args, table, seeds, outputs))
        return None
    table = with_edit_size(table, seeds)  # programs made before edit_size was stored: computed here
    print(ceiling_balance(table))
    timings: dict = {}
    scores, metrics = _step(table, seeds, outputs, timings)
    for step, (wall, cpu) in timings.items():
        print(f"{step}: {wall:.1f} s wall, {cpu:.1f} s CPU (in this process)")
    scores.write_parquet(args.cache / f"{args.corpus}-scores.parquet")  # the metrics step's input, for --measure
    sizes = edit_size_by_ceiling(scores)
    with pl.Config(tbl_rows=100, tbl_cols=20, tbl_width_chars=200):
        print(table_iii(metrics))
    print(figures_markdown(metrics, sizes))
    if args.store:
        FIGURES.mkdir(parents=True, exist_ok=True)
        metrics.write_csv(FIGURES / f"graded-{args.corpus}.csv")
        sizes.write_csv(FIGURES / f"graded-{args.corpus}-edit-size.csv")
        print(f"stored {FIGURES / f'graded-{args.corpus}.csv'} and the edit sizes beside it")
    return None


if __name__ == "__main__":
    main()
