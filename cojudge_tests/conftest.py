"""Shared fixtures: a tiny problem package, a contest judge with its own compile cache, and the demo study made by
the README's run command (run once per session: the end-to-end tests and the report tests read the same run)."""

from __future__ import annotations

import os
import subprocess
import sys
from dataclasses import dataclass
from pathlib import Path

import pytest

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.kattis import ProblemPackage, read_problem

REPO = Path(__file__).resolve().parents[1]
SHARED_CORPORA = REPO.parent / "shared" / "corpora"
DEMO_STUDY_TIMEOUT_S = 1800  # a cold run of the whole demo study: label audit, judging, ~700 mutants


def run_command(
    db: Path, home: Path, *extra: str, timeout: float = DEMO_STUDY_TIMEOUT_S
) -> subprocess.CompletedProcess:
    """The README's run command (``cojudge materialize``) into this DuckDB file and Dagster home, with this
    checkout's code first on the path (an editable install may point at another checkout)."""
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    cli = Path(sys.executable).parent / "cojudge"
    return subprocess.run(
        [str(cli), "materialize", "--duckdb", str(db), *extra],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


@dataclass(frozen=True)
class DemoStudy:
    db: Path
    home: Path
    stdout: str


@pytest.fixture(scope="session")
def demo_study(tmp_path_factory) -> DemoStudy:
    """The whole demo study, cold (a fresh DuckDB file and Dagster home), by the README's run command. Tests that
    change it work on a copy."""
    home = tmp_path_factory.mktemp("dagster_home")
    (home / "dagster.yaml").write_text((REPO / "dagster_home" / "dagster.yaml").read_text())
    db = tmp_path_factory.mktemp("demo-study") / "cojudge.duckdb"
    done = run_command(db, home)
    assert done.returncode == 0, f"the demo study failed:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return DemoStudy(db, home, done.stdout)


def write_problem(
    root: Path, tests: dict[str, tuple[str, str]], *, time_limit: float = 1.0, memory_mb: int = 256, name: str = "sum"
) -> ProblemPackage:
    """A Kattis package under ``root`` with tests {"sample/1": (input, answer), ...}."""
    pkg = root / name
    (pkg / "problem_statement").mkdir(parents=True, exist_ok=True)
    (pkg / "problem.yaml").write_text(f'name: "Sum"\nlimits:\n  time_limit_s: {time_limit}\n  memory_mb: {memory_mb}\n')
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
    return write_problem(
        tmp_path_factory.mktemp("problems"),
        {
            "sample/1": ("3 4\n", "7\n"),
            "secret/1": ("2000000000 2000000000\n", "4000000000\n"),
            "secret/2": ("-5 5\n", "0\n"),
        },
    )
