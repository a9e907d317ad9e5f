"""Small corpora and judges files for the judging tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import polars as pl

from cojudge_assets.core.execution.contest_judge import Compiled, ContestJudge
from cojudge_tests.conftest import REPO


def write_synthetic_progsnap2(root: Path, n: int) -> Path:
    """A ProgSnap2 corpus of ``n`` Python submissions by 7 subjects on 3 problems, every code distinct."""
    folder = root / "progsnap2"
    (folder / "CodeStates").mkdir(parents=True)
    events = pl.DataFrame(
        {
            "EventType": ["Submit"] * n,
            "EventID": [f"e{i}" for i in range(n)],
            "Order": list(range(n)),
            "SubjectID": [f"s{i % 7}" for i in range(n)],
            "ProblemID": [f"p{i % 3}" for i in range(n)],
            "CodeStateID": [f"c{i}" for i in range(n)],
            "ServerTimestamp": [f"2024-01-01T10:{i // 60:02d}:{i % 60:02d}" for i in range(n)],
            "Correct": ["true" if i % 3 == 0 else "false" for i in range(n)],
            "Language": ["Python"] * n,
        }
    )
    events.write_csv(folder / "MainTable.csv")
    pl.DataFrame(
        {"CodeStateID": [f"c{i}" for i in range(n)], "Code": [f"n = int(input())\nprint(n + {i})\n" for i in range(n)]}
    ).write_csv(folder / "CodeStates" / "CodeStates.csv")
    return root


def write_judges_file(
    path: Path, api_base: str, *, concurrency: int = 2, local: bool = False, key_env: str = "LOOPBACK_KEY", **extra
) -> Path:
    """A judges config with one loopback judge named ``loop`` (and the local static-rubric if ``local``)."""
    lines = [
        "judges:",
        "  - name: loop",
        "    model: openai/loopback-model-1",
        f"    api_base: {api_base}",
        f"    api_key_env: {key_env}",
        f"    concurrency: {concurrency}",
        "    timeout_s: 5",
    ]
    lines += [f"    {k}: {v}" for k, v in extra.items()]
    if local:
        lines += ["  - name: static-rubric", "    model: cojudge/static-rubric", "    concurrency: 2"]
    path.write_text("\n".join(lines) + "\n")
    return path


def cli(
    args: list[str],
    *,
    db: Path,
    judges: Path,
    home: Path,
    timeout: float = 600,
    popen: bool = False,
    extra_env: dict | None = None,
):
    """Run ``cojudge`` in its own process (as a user would) against this DuckDB file and judges file."""
    home.mkdir(parents=True, exist_ok=True)
    env = {
        **os.environ,
        "DAGSTER_HOME": str(home),
        "COJUDGE_DUCKDB": str(db),
        "COJUDGE_JUDGES": str(judges),
        **(extra_env or {}),
    }
    command = [str(Path(sys.executable).parent / "cojudge"), *args]
    if popen:
        return subprocess.Popen(
            command,
            cwd=REPO,
            env=env,
            stdout=subprocess.PIPE,
            stderr=subprocess.STDOUT,
            text=True,
            start_new_session=True,
        )
    return subprocess.run(command, cwd=REPO, env=env, capture_output=True, text=True, timeout=timeout)


class RecordingJudge(ContestJudge):
    """The contest judge, recording each batch it is asked to precompile and, for each compile, whether the
    program was already in the compile cache (``Compiled.cached``)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self.batches: list[list[tuple[str, str, int]]] = []
        self.compiles: list[tuple[str, bool]] = []  # (language, found in the cache)

    def precompile(self, items):
        items = list(items)
        self.batches.append(items)
        return super().precompile(items)

    def compile(self, language: str, code: str, *, memory_mb: int = 256) -> Compiled:
        compiled = super().compile(language, code, memory_mb=memory_mb)
        self.compiles.append((language, compiled.cached))
        return compiled
