"""The ``problems`` table: one row per problem, from a folder of Kattis packages."""

from __future__ import annotations

from pathlib import Path

import polars as pl

from cojudge_assets.core.kattis import read_problems

PROBLEM_SCHEMA = {
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


def problems_table(folder: Path) -> pl.DataFrame:
    """Read every package under ``folder``; sample I/O inline, secret tests by location."""
    rows = []
    for pid, p in read_problems(folder).items():
        rows.append({
            "problem_id": pid,
            "name": p.name,
            "statement": p.statement,
            "time_limit_s": p.time_limit_s,
            "memory_mb": p.memory_mb,
            "limits_stated": p.limits_stated,
            "sample_inputs": [t.input_path.read_text(encoding="utf-8", errors="replace") for t in p.samples],
            "sample_outputs": [t.answer_path.read_text(encoding="utf-8", errors="replace") for t in p.samples],
            "n_secret_tests": len(p.secret),
            "tests_location": str(p.root / "data"),
        })
    return pl.DataFrame(rows, schema=PROBLEM_SCHEMA)
