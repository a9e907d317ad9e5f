"""The label audit: recorded verdicts against a re-execution in the sandbox.

In the spirit of the seed study's verdict audit (IV-D): where a problem package
has tests and the corpus has recorded verdicts, every attempt is re-judged by the
contest judge and the two are compared. Recorded verdicts stay the labels; the
audit only makes their noise visible (crashes or non-terminating runs recorded as
WA, whitespace-strict comparison, undefined behaviour, different limits).

``verdict_agrees`` compares the verdicts themselves; a recorded ``REJ``
(rejected, exact verdict unknown) agrees with any non-AC re-execution.
``label_agrees`` compares only accepted / not accepted. Both are null where the
judge could not run the attempt (``JUDGE_ERROR``, its reason in ``detail``): no
evidence either way.
"""

from __future__ import annotations

from collections.abc import Callable

import polars as pl

from cojudge_assets.core.execution.contest_judge import EXTENSIONS, ContestJudge, Verdict
from cojudge_assets.core.ingest.kattis import ProblemPackage

AUDIT_SCHEMA = {
    "attempt_uid": pl.String,
    "problem_id": pl.String,
    "language": pl.String,
    "recorded_verdict": pl.String,
    "reexec_verdict": pl.String,
    "verdict_agrees": pl.Boolean,
    "label_agrees": pl.Boolean,
    "first_failure": pl.String,
    "detail": pl.String,
}


def auditable(attempts: pl.DataFrame, problems: dict[str, ProblemPackage]) -> pl.DataFrame:
    """Attempts whose problem has tests and whose language the judge runs."""
    with_tests = [pid for pid, p in problems.items() if p.tests]
    return attempts.filter(pl.col("problem_id").is_in(with_tests) & pl.col("language").is_in(list(EXTENSIONS)))


def audit_labels(
    attempts: pl.DataFrame,
    problems: dict[str, ProblemPackage],
    judge: ContestJudge,
    *,
    progress: Callable[[str], object] | None = None,
) -> pl.DataFrame:
    """One row per re-executed attempt (see module docstring); ``progress`` gets a line at most every 10 s
    (core/progress.py)."""
    from cojudge_assets.core.progress import Progress

    rows = auditable(attempts, problems).sort("attempt_uid").to_dicts()
    tracker = Progress(progress, len(rows), "label audit (attempts re-executed)")
    results = judge.judge_many(
        [(problems[r["problem_id"]], r["language"], r["code"]) for r in rows], on_done=tracker.advance
    )
    tracker.finish()
    out = []
    for r, res in zip(rows, results):
        recorded, again = r["verdict"], res.verdict.value
        failure = res.first_failure
        judged = res.verdict != Verdict.JUDGE_ERROR
        out.append(
            {
                "attempt_uid": r["attempt_uid"],
                "problem_id": r["problem_id"],
                "language": r["language"],
                "recorded_verdict": recorded,
                "reexec_verdict": again,
                "verdict_agrees": (recorded == again or (recorded == "REJ" and again != "AC")) if judged else None,
                "label_agrees": ((recorded == "AC") == (again == "AC")) if judged else None,
                "first_failure": failure.test if failure else None,
                "detail": (failure.detail if failure else res.compile_message or res.error)[:300] or None,
            }
        )
    return pl.DataFrame(out, schema=AUDIT_SCHEMA)


def audit_summary(audit: pl.DataFrame) -> pl.DataFrame:
    """Agreement per (problem, recorded verdict)."""
    return (
        audit.group_by("problem_id", "recorded_verdict")
        .agg(
            pl.len().alias("attempts"),
            pl.col("verdict_agrees").sum().alias("verdict_agree"),
            pl.col("label_agrees").sum().alias("label_agree"),
        )
        .sort("problem_id", "recorded_verdict")
    )
