"""Shared fixtures: a tiny problem package, a contest judge with its own compile cache, and the demo study made by
the README's run command (run once per session: the end-to-end tests and the report tests read the same run)."""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.kattis import ProblemPackage, read_problem
from cojudge_tests.services import postgres, redis  # noqa: F401 - the services as fixtures, for every test

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


def record_boxes(monkeypatch: pytest.MonkeyPatch, prefix: str) -> list[Path]:
    """The folders ``tempfile.mkdtemp`` makes under this name prefix from now on, in this process. A test that checks
    its run's box is removed looks at the boxes it made, not at the shared temporary folder, where the runs of
    another worker (pytest-xdist) make and remove boxes of the same name at the same time."""
    made: list[Path] = []
    real = tempfile.mkdtemp

    def recording(*args, **kwargs):
        folder = real(*args, **kwargs)
        if Path(folder).name.startswith(prefix):
            made.append(Path(folder))
        return folder

    monkeypatch.setattr(tempfile, "mkdtemp", recording)
    return made


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


# --- test tiers --------------------------------------------------------------------------------------------------
# `pytest -m "not slow"` is the tier to run while developing; CI runs everything. A test is marked slow here, by what
# it uses, so that a new test of the same kind falls into the slow tier without anyone remembering the marker:
SLOW_FIXTURES = {
    "demo_study": "the whole demo study, run cold by the README's command",
    "chromium": "a headless browser",
    "postgres": "a PostgreSQL cluster of its own (cojudge_tests/services.py)",
    "redis": "a Redis server of its own (cojudge_tests/services.py)",
}
SLOW_NAMES = {
    # a name the test or one of its fixtures calls or reads (module globals included), and why it is slow
    "SHARED_CORPORA": "reads the real corpora in ../shared/corpora",
    "run_command": "runs the README's command on a corpus",
    "run_steps": "drives the run loop over the asset graph",
    "launch_chromium": "a headless browser",
}
SLOW_STRINGS = {
    # a string constant (a whole argument, not part of a docstring) in the test's or a fixture's code: a process
    # the test starts
    "materialize": "runs `cojudge materialize` in its own process",
    "dagster-webserver": "serves the Dagster UI",
    "dagster-daemon": "runs the Dagster daemon",
}
SLOW_MODULES = {
    # whole modules whose every test is heavy sandbox work or runs the graph
    "cojudge_tests/faults/test_run_safety.py": "ingest runs killed and refused through Dagster",
    "cojudge_tests/faults/test_cli_faults.py": "one `cojudge` process per bad invocation",
    "cojudge_tests/faults/test_sandbox_faults.py": "hostile programs compiled and run to their limits",
    "cojudge_tests/core/test_contest_judge.py": "programs in four languages compiled and run in the sandbox",
    "cojudge_tests/core/test_perturbation_verify.py": "mutants compiled and run against the tests",
}


def _code_words(fn) -> tuple[set[str], set[str]]:
    """The names and string constants of ``fn``'s code, of the functions nested in it and of the test helpers it
    calls (functions of cojudge_tests, followed through), plus ``SHARED_CORPORA`` when it reads a module global
    that is a path under the shared corpora (``ROOT = SHARED_CORPORA / ...``)."""
    names: set[str] = set()
    strings: set[str] = set()
    seen: set[int] = set()
    todo = [fn]
    while todo:
        current = todo.pop()
        if id(current) in seen or getattr(current, "__code__", None) is None:
            continue
        seen.add(id(current))
        module_globals = getattr(current, "__globals__", {})
        codes = [current.__code__]
        while codes:
            code = codes.pop()
            for name in code.co_names:
                names.add(name)
                value = module_globals.get(name)
                if isinstance(value, Path) and value.is_relative_to(SHARED_CORPORA):
                    names.add("SHARED_CORPORA")
                elif callable(value) and getattr(value, "__module__", "").startswith("cojudge_tests"):
                    todo.append(value)
            for const in code.co_consts:
                if isinstance(const, str):
                    strings.add(const)
                elif hasattr(const, "co_names"):
                    codes.append(const)
    return names, strings


def slow_reason(item: pytest.Item) -> str | None:
    """Why ``item`` belongs to the slow tier (None: the fast tier)."""
    fixtures = set(getattr(item, "fixturenames", ()))
    for name, reason in SLOW_FIXTURES.items():
        if name in fixtures:
            return f"uses fixture {name}: {reason}"
    where = Path(str(item.path)).resolve()  # outside the repository: the child run of test_workers.py
    path = (where.relative_to(REPO) if where.is_relative_to(REPO) else where).as_posix()
    for prefix, reason in SLOW_MODULES.items():
        if path.startswith(prefix):
            return f"{prefix}: {reason}"
    functions = [getattr(item, "function", None)]
    defs = getattr(getattr(item, "_fixtureinfo", None), "name2fixturedefs", {})
    functions += [d.func for name in fixtures for d in defs.get(name, ())]
    for fn in filter(None, functions):
        names, strings = _code_words(fn)
        for name, reason in SLOW_NAMES.items():
            if name in names:
                return f"{fn.__name__} uses {name}: {reason}"
        for text, reason in SLOW_STRINGS.items():
            if text in strings:
                return f"{fn.__name__} starts {text}: {reason}"
    return None


# --- workers (pytest-xdist) ---------------------------------------------------------------------------------------
# `.ci/check` runs the tests on 2 workers with `--dist loadgroup`: a test runs on whichever worker is free, except that
# the tests of one `xdist_group` run one after another on one worker. Each worker is a process with its own session
# fixtures (its own tmp_path_factory folder, Postgres cluster, Redis server and browser: the services bind free ports).
# A session fixture that costs minutes would be built on both workers; its users are put in one group when building
# it twice costs more than running them on one worker (docs/benchmarks.md, "Tests"). Whichever user comes first on
# that worker builds it, so each user without a time limit of its own gets the build's (the default 600 s is less).
SHARED_BUILDS = {
    # fixture: (the group of every test that uses it, the time limit of each of them)
    "demo_study": ("demo_study", DEMO_STUDY_TIMEOUT_S),  # the cold demo study, 2-10 min of sandboxed runs
}


@pytest.hookimpl(tryfirst=True)  # before pytest-xdist's own hook, which reads the groups into the node ids
def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    for item in items:
        if item.get_closest_marker("slow") is None and slow_reason(item) is not None:
            item.add_marker(pytest.mark.slow)
        fixtures = set(getattr(item, "fixturenames", ()))
        for fixture, (group, build_s) in SHARED_BUILDS.items():
            if fixture not in fixtures:
                continue
            if item.get_closest_marker("xdist_group") is None:
                item.add_marker(pytest.mark.xdist_group(name=group))
            if item.get_closest_marker("timeout") is None:
                item.add_marker(pytest.mark.timeout(build_s))
