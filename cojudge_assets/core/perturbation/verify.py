"""Seeds, mutants and their verification by execution in the sandbox.

A seed is an accepted C, C++ or Java attempt whose problem has tests. It is
re-run on every test first: only a seed the contest judge accepts here, with its
output per test recorded, is mutated (``usable``).

A mutant is verified when (1) it differs from its seed by exactly its recorded
edit (operators.applies_once; rewrites.single_edit for the rewrites of the
control arm: a rename, a reformat, a swap of two lines), (2) it compiles and,
for the control and adversarial arms, (3) its output is byte-identical to the
seed's on every test.
Beyond the seed study, every semantic mutant is run on the problem's tests too
and labelled ``behaviour_changed`` (some test's verdict differs from the seed's,
which is AC everywhere), so that "the defect was real" is measured. Semantic
and control mutants alike stop at their first failing test, like contest
judging (a control that fails a test is not identical anyway; one that passes
runs every test, and all its outputs are compared).

Compiling and executing use the contest judge's workers (one per core);
mutating is spread over processes from PARALLEL_MUTATION_FROM seeds up.
"""

from __future__ import annotations

import multiprocessing
import os
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from typing import TYPE_CHECKING

import numpy as np
import polars as pl

from cojudge_assets.core.execution.contest_judge import ContestJudge, JudgeResult, Verdict
from cojudge_assets.core.ingest.kattis import ProblemPackage
from cojudge_assets.core.perturbation import budget
from cojudge_assets.core.perturbation.operators import mutate
from cojudge_assets.core.perturbation.rewrites import rewrite, rewrite_plan, single_edit

if TYPE_CHECKING:
    from polars._typing import PolarsDataType  # the dtype alias polars' own signatures use

MUTATED_LANGUAGES = ("c", "cpp", "java")
PARALLEL_MUTATION_FROM = 200  # seeds; below this, starting worker processes costs more than parsing (~4 ms a seed)

SEED_SCHEMA: dict[str, PolarsDataType] = {
    "seed_uid": pl.String,
    "participant": pl.String,
    "problem_id": pl.String,
    "language": pl.String,
    "language_label": pl.String,
    "code": pl.String,
    "reexec_verdict": pl.String,
    "tests": pl.Int64,
    "output_sha256": pl.List(pl.String),
    "usable": pl.Boolean,
    "reason": pl.String,
}
MUTANT_SCHEMA = {
    "mutant_uid": pl.String,
    "seed_uid": pl.String,
    "problem_id": pl.String,
    "language": pl.String,
    "language_label": pl.String,
    "operator": pl.String,
    "arm": pl.String,
    "severity": pl.Int64,
    "site": pl.Int64,
    "line": pl.Int64,
    "kind": pl.String,
    "before": pl.String,
    "after": pl.String,
    "in_guard": pl.Boolean,
    "in_loop": pl.Boolean,
    "code": pl.String,
    "single_edit": pl.Boolean,
    "compiles": pl.Boolean,
    "outputs_identical": pl.Boolean,
    "behaviour_changed": pl.Boolean,
    "mutant_verdict": pl.String,
    "first_failure": pl.String,
    "verified": pl.Boolean,
    "reason": pl.String,
}


def mutation_seeds(
    attempts: pl.DataFrame, packages: dict[str, ProblemPackage], judge: ContestJudge, *, max_seeds: int | None = None
) -> pl.DataFrame:
    """One row per accepted C/C++/Java attempt with tests, re-run on its tests (see module docstring).

    ``max_seeds`` keeps that many, spread evenly over the seeds in attempt_uid order."""
    with_tests = [pid for pid, package in packages.items() if package.tests]
    rows = (
        attempts.filter(
            pl.col("accepted").fill_null(False)
            & pl.col("language").is_in(MUTATED_LANGUAGES)
            & pl.col("problem_id").is_in(with_tests)
        )
        .sort("attempt_uid")
        .to_dicts()
    )
    if max_seeds is not None and len(rows) > max_seeds:
        # spread over the corpus (attempt_uid order often follows the course's order of assignments)
        rows = [rows[i] for i in np.linspace(0, len(rows) - 1, max_seeds).round().astype(int)]
    # an accepted program runs every test anyway; one that fails here stops at its first failure
    results = judge.judge_many([(packages[r["problem_id"]], r["language"], r["code"]) for r in rows])
    out = []
    for r, result in zip(rows, results):
        usable = result.verdict == Verdict.AC
        reason = (
            None
            if usable
            else f"re-run here gives {result.verdict.value}"
            + (f" on {result.first_failure.test}" if result.first_failure else "")
        )
        out.append(
            {
                "seed_uid": r["attempt_uid"],
                "participant": r["participant"],
                "problem_id": r["problem_id"],
                "language": r["language"],
                "language_label": r["language_label"],
                "code": r["code"],
                "reexec_verdict": result.verdict.value,
                "tests": len(result.tests),
                "output_sha256": [t.output_sha256 for t in result.tests],
                "usable": usable,
                "reason": reason,
            }
        )
    return pl.DataFrame(out, schema=SEED_SCHEMA)


SKIPPED = "skipped"  # the kind of a seed's one row when its tree-sitter work went past a budget (budget.py)


def _skipped_seed(seed_uid: str, over: budget.OverBudget) -> dict:
    """The one row of a seed whose tree-sitter work went past a limit: the rule that ran out and the limit, no code
    (never compiled, run or judged); its other rows, if any were made, are dropped."""
    return {
        "seed_uid": seed_uid,
        "operator": over.rule,
        "arm": None,
        "severity": None,
        "site": -1,
        "line": None,
        "kind": SKIPPED,
        "before": None,
        "after": None,
        "in_guard": None,
        "in_loop": None,
        "code": None,
        "single_edit": False,
        "skip_reason": over.reason,
    }


def _mutate_one(args: tuple[str, str, str, int | None, tuple[str, ...], bool, float]) -> list[dict]:
    seed_uid, code, language, cap, rewrites, first_only, seconds = args
    try:
        with budget.program_budget(seconds):
            return _mutants_of(seed_uid, code, language, cap, rewrites, first_only)
    except budget.OverBudget as over:
        return [_skipped_seed(seed_uid, over)]


def _mutants_of(
    seed_uid: str, code: str, language: str, cap: int | None, rewrites: tuple[str, ...], first_only: bool
) -> list[dict]:
    rewritten = rewrite(code, language, max_per_operator=cap, operators=rewrites, first_only=first_only)
    return [
        {
            "seed_uid": seed_uid,
            "operator": m.operator,
            "arm": m.arm,
            "severity": m.severity,
            "site": m.site,
            "line": m.line,
            "kind": m.kind,
            "before": m.before,
            "after": m.after,
            "in_guard": m.in_guard,
            "in_loop": m.in_loop,
            "code": m.code,
            "single_edit": single_edit(code, m, language),
        }
        for m in mutate(code, language, max_per_operator=cap) + rewritten
    ]


def generate_mutants(
    seeds: pl.DataFrame,
    *,
    max_per_operator: int | None,
    rewrite_share: float | None = None,
    workers: int | None = None,
    seconds_per_seed: float = budget.TIME_BUDGET_S,
    progress: Callable[[str], object] | None = None,
) -> list[dict]:
    """Every operator at every (capped) site of every usable seed, and the rewrites of rewrites.rewrite_plan
    (``rewrite_share`` None: every rewrite on every seed); tree-sitter parsing on all cores. A seed's mutants
    depend on that seed alone (its code, and its seed_uid's hash for the rewrite), so adding or removing a seed
    changes no other seed's mutants, and a bucket of the seeds can be mutated alone. ``progress`` gets a line at
    most every 10 s (core/progress.py).

    A seed whose tree is deeper than budget.MAX_TREE_DEPTH, or whose tree-sitter work takes more than
    ``seconds_per_seed``, gets one row of kind ``skipped`` instead (the rule that ran out and the limit, in
    ``reason`` once verified); the plan of the other seeds does not change."""
    from cojudge_assets.core.progress import Progress

    usable = seeds.filter(pl.col("usable")).sort("seed_uid")
    plan = rewrite_plan(usable["seed_uid"].to_list(), rewrite_share)
    jobs = [
        (
            r["seed_uid"],
            r["code"],
            r["language"],
            max_per_operator,
            rewrites,
            rewrite_share is not None,
            seconds_per_seed,
        )
        for r, rewrites in zip(usable.iter_rows(named=True), plan)
    ]
    workers = workers or os.cpu_count() or 1
    tracker = Progress(progress, len(jobs), "mutant generation (seeds mutated)")
    batches = []
    if workers > 1 and len(jobs) >= PARALLEL_MUTATION_FROM:
        # forkserver, not fork: the asset runs in a process with threads (Dagster's, DuckDB's), and a forked
        # child could inherit a lock held by one of them
        context = multiprocessing.get_context("forkserver")
        with ProcessPoolExecutor(max_workers=workers, mp_context=context) as pool:
            for batch in pool.map(_mutate_one, jobs, chunksize=max(1, len(jobs) // (4 * workers))):
                batches.append(batch)
                tracker.advance()
    else:
        for job in jobs:
            batches.append(_mutate_one(job))
            tracker.advance()
    tracker.finish()
    return [row for batch in batches for row in batch]


def _verdict_of(result: JudgeResult, seed_outputs: list[str], arm: str) -> dict:
    if result.verdict == Verdict.JUDGE_ERROR:  # the judge could not run it: nothing is known (see _reason)
        return {
            "compiles": None,
            "mutant_verdict": result.verdict.value,
            "first_failure": None,
            "outputs_identical": None,
            "behaviour_changed": None,
        }
    compiles = result.verdict != Verdict.CE
    failure = result.first_failure
    row = {
        "compiles": compiles,
        "mutant_verdict": result.verdict.value,
        "first_failure": failure.test if failure else None,
        "outputs_identical": None,
        "behaviour_changed": None,
    }
    if not compiles:
        return row
    if arm == "semantic":
        row["behaviour_changed"] = result.verdict != Verdict.AC
    else:
        row["outputs_identical"] = len(result.tests) == len(seed_outputs) and all(
            t.verdict == Verdict.AC and t.output_sha256 == s for t, s in zip(result.tests, seed_outputs)
        )
    return row


def _reason(row: dict) -> str | None:
    if row["kind"] == SKIPPED:
        return row["skip_reason"]
    if not row["single_edit"]:
        return "differs from its seed by more than its recorded edit"
    if row["mutant_verdict"] == Verdict.JUDGE_ERROR.value:
        return "the contest judge could not run it (JUDGE_ERROR)"
    if not row["compiles"]:
        return "does not compile"
    if row["arm"] != "semantic" and not row["outputs_identical"]:
        return f"output differs from the seed's ({row['mutant_verdict']} on {row['first_failure'] or 'a test'})"
    return None


def verify_mutants(
    seeds: pl.DataFrame,
    mutants: list[dict],
    packages: dict[str, ProblemPackage],
    judge: ContestJudge,
    *,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """Compile and run every single-edit mutant (see module docstring); one row per mutant. ``progress`` gets a
    line at most every 10 s (core/progress.py)."""
    from cojudge_assets.core.progress import Progress

    by_seed = {r["seed_uid"]: r for r in seeds.iter_rows(named=True)}
    runnable = [m for m in mutants if m["single_edit"]]
    tracker = Progress(progress, len(runnable), "mutant verification (mutants run)")
    results = judge.judge_many(
        [
            (packages[by_seed[m["seed_uid"]]["problem_id"]], by_seed[m["seed_uid"]]["language"], m["code"])
            for m in runnable
        ],
        on_done=tracker.advance,
    )
    tracker.finish()
    outcome = {
        id(m): _verdict_of(res, by_seed[m["seed_uid"]]["output_sha256"], m["arm"]) for m, res in zip(runnable, results)
    }
    out = []
    for m in mutants:
        seed = by_seed[m["seed_uid"]]
        row = {
            **m,
            "mutant_uid": f"{m['seed_uid']}~{SKIPPED if m['kind'] == SKIPPED else m['operator']}~{m['site']}",
            "problem_id": seed["problem_id"],
            "language": seed["language"],
            "language_label": seed["language_label"],
            **outcome.get(
                id(m),
                {
                    "compiles": None,
                    "mutant_verdict": None,
                    "first_failure": None,
                    "outputs_identical": None,
                    "behaviour_changed": None,
                },
            ),
        }
        row["reason"] = _reason(row)
        row.pop("skip_reason", None)
        row["verified"] = row["reason"] is None
        out.append(row)
    return pl.DataFrame(out, schema=MUTANT_SCHEMA).sort("mutant_uid")


def request_frame(seeds: pl.DataFrame, mutants: pl.DataFrame) -> pl.DataFrame:
    """Seeds and verified mutants shaped like attempts, for core/requests.build_requests (blind)."""
    columns = ["attempt_uid", "problem_id", "language", "language_label", "code"]
    seed_rows = seeds.filter(pl.col("usable")).rename({"seed_uid": "attempt_uid"}).select(columns)
    mutant_rows = mutants.filter(pl.col("verified")).rename({"mutant_uid": "attempt_uid"}).select(columns)
    return pl.concat([seed_rows, mutant_rows]).sort("attempt_uid")
