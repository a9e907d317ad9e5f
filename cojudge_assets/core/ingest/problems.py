"""The ``problems`` table: one row per problem, from a folder of Kattis packages."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING

import polars as pl

from cojudge_assets.core.ingest.kattis import scan_problems
from cojudge_assets.core.judging.examples import PACKAGE_MARK, same_examples, statement_examples

if TYPE_CHECKING:
    from polars._typing import PolarsDataType  # the dtype alias polars' own signatures use

PROBLEM_SCHEMA: dict[str, PolarsDataType] = {
    "problem_id": pl.String,
    "name": pl.String,
    "statement": pl.String,
    "time_limit_s": pl.Float64,
    "memory_mb": pl.Int64,
    "limits_stated": pl.Boolean,
    "sample_inputs": pl.List(pl.String),
    "sample_outputs": pl.List(pl.String),
    "n_secret_tests": pl.Int64,
    "tests_location": pl.String,
}


_MENTIONS_EXAMPLES = re.compile(r"(sample|example)\s*(input|output)", re.IGNORECASE)


def full_statement(
    statement: str, samples: list[tuple[str, str]], time_limit_s: float | None, memory_mb: int | None
) -> str:
    """The statement a judge is sent: the text, plus what the package knows and the text leaves out.

    Examples: the text's own examples (:func:`~cojudge_assets.core.judging.examples.statement_examples`) are
    checked against the package's sample tests, token by token. When they agree, or the package has
    none, the text is sent as it is. Otherwise the package's samples are appended as fenced
    "Sample Input N"/"Sample Output N" blocks, after the text (which is never cut): headed
    "(from the problem package)" when the text shows examples that cannot be read or disagree (the
    extractor then reads those instead), plain when the text shows none (real course statements often
    describe the format and keep the examples in the test data). Limits: when the package states them
    and the text never says "time limit", one line with the time and memory limits is appended.
    """
    parts = [statement.rstrip()]
    shown = statement_examples(statement)
    if samples and not same_examples(shown, samples):
        mark = f" {PACKAGE_MARK}" if shown or _MENTIONS_EXAMPLES.search(statement) else ""
        for i, (given, expected) in enumerate(samples, start=1):
            parts.append(
                f"### Sample Input {i}{mark}\n```\n{given.rstrip()}\n```\n\n"
                f"### Sample Output {i}{mark}\n```\n{expected.rstrip()}\n```"
            )
    if time_limit_s and not re.search(r"time\s*limit", statement, re.IGNORECASE):
        memory = f", memory limit {memory_mb} MB" if memory_mb else ""
        parts.append(f"Limits: time limit {time_limit_s:g} s{memory}.")
    return "\n\n".join(parts) + "\n"


def problems_table(folder: Path) -> pl.DataFrame:
    """Read every package under ``folder``; sample I/O inline, secret tests by location.

    ``statement`` is the full statement a judge is sent (:func:`full_statement`). A package that
    cannot be read is left out (:func:`~cojudge_assets.core.ingest.kattis.scan_problems` says why).
    """
    rows = []
    for pid, p in scan_problems(folder)[0].items():
        samples = [
            (
                t.input_path.read_text(encoding="utf-8", errors="replace"),
                t.answer_path.read_text(encoding="utf-8", errors="replace"),
            )
            for t in p.samples
        ]
        rows.append(
            {
                "problem_id": pid,
                "name": p.name,
                "statement": full_statement(
                    p.statement,
                    samples,
                    p.time_limit_s if p.limits_stated else None,
                    p.memory_mb if p.limits_stated else None,
                ),
                "time_limit_s": p.time_limit_s,
                "memory_mb": p.memory_mb,
                "limits_stated": p.limits_stated,
                "sample_inputs": [given for given, _ in samples],
                "sample_outputs": [expected for _, expected in samples],
                "n_secret_tests": len(p.secret),
                "tests_location": str(p.root / "data"),
            }
        )
    return pl.DataFrame(rows, schema=PROBLEM_SCHEMA)
