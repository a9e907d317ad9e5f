"""Shared fixtures: a tiny problem package and a contest judge with its own compile cache."""

from __future__ import annotations

from pathlib import Path

import pytest

from cojudge_assets.core.contest_judge import ContestJudge
from cojudge_assets.core.kattis import ProblemPackage, read_problem

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO.parent / "shared" / "corpora"


def write_problem(root: Path, tests: dict[str, tuple[str, str]], *, time_limit: float = 1.0,
                  memory_mb: int = 256, name: str = "sum") -> ProblemPackage:
    """A Kattis package under ``root`` with tests {"sample/1": (input, answer), ...}."""
    pkg = root / name
    (pkg / "problem_statement").mkdir(parents=True, exist_ok=True)
    (pkg / "problem.yaml").write_text(
        f'name: "Sum"\nlimits:\n  time_limit_s: {time_limit}\n  memory_mb: {memory_mb}\n')
    (pkg / "problem_statement" / "problem.en.md").write_text("# Sum\n\nPrint a + b.\n")
    for key, (inp, ans) in tests.items():
        group, stem = key.split("/")
        (pkg / "data" / group).mkdir(parents=True, exist_ok=True)
        (pkg / "data" / group / f"{stem}.in").write_text(inp)
        (pkg / "data" / group / f"{stem}.ans").write_text(ans)
    return read_problem(pkg)


@pytest.fixture(scope="session")
def judge(tmp_path_factory) -> ContestJudge:
    return ContestJudge(tmp_path_factory.mktemp("compile-cache"))


@pytest.fixture(scope="session")
def sum_problem(tmp_path_factory) -> ProblemPackage:
    return write_problem(tmp_path_factory.mktemp("problems"), {
        "sample/1": ("3 4\n", "7\n"),
        "secret/1": ("2000000000 2000000000\n", "4000000000\n"),
        "secret/2": ("-5 5\n", "0\n"),
    })
