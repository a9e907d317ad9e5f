"""Resources shared by the asset groups, bound in :mod:`cojudge_assets.definitions`."""

from __future__ import annotations

import os
from pathlib import Path

import dagster as dg

from cojudge_assets.core.contest_judge import ContestJudge
from cojudge_assets.core.kattis import ProblemPackage, scan_problems
from cojudge_assets.core.preflight import DEFAULT_CORPUS, DEFAULT_DUCKDB, corpus_input_problem

PROJECT_ROOT = Path(__file__).resolve().parents[2]
REFUSED = "cojudge/refused"  # metadata key of a dg.Failure by which a step refuses to replace stored tables


def duckdb_path() -> str:
    """The DuckDB file: ``$COJUDGE_DUCKDB`` if set, else ``data/cojudge.duckdb`` in the project.

    Read when the Definitions are built (not at import of the asset modules), so a
    test or a deployment points the whole graph at another file by setting the
    variable before loading.
    """
    return os.environ.get("COJUDGE_DUCKDB") or str(DEFAULT_DUCKDB)


def output_dir() -> Path:
    """Where files beside the tables go (the requests JSONL, the report): the DuckDB file's folder."""
    return Path(duckdb_path()).resolve().parent


class ContestJudgeResource(dg.ConfigurableResource):
    """The sandboxed contest judge (compiles and runs untrusted code)."""

    compile_cache: str = ""  # empty: ~/.cache/cojudge/compile
    workers: int = 0  # 0: one per core

    def judge(self) -> ContestJudge:
        return ContestJudge(self.compile_cache or None, workers=self.workers or None)


class CorpusResource(dg.ConfigurableResource):
    """Where the contest data live and in which layout.

    ``layout`` is ``pages`` (saved submission pages + chat logs + Kattis
    problems, like the demo corpus), ``progsnap2`` or ``codenet`` (see
    core/corpus.py). ``path`` is the corpus folder; relative paths are taken
    from the project root.
    """

    path: str = str(DEFAULT_CORPUS)
    layout: str = "pages"
    window_start: str = ""  # "YYYY-MM-DD HH:MM:SS"; empty: from the corpus's contest.yaml
    window_end: str = ""
    allow_empty: bool = False  # let a corpus that yields no attempts replace the stored tables with empty ones

    def root(self) -> Path:
        p = Path(self.path)
        return p if p.is_absolute() else PROJECT_ROOT / p

    def refuse(self, reason: str, kept: str = "the ingest tables") -> dg.Failure:
        """The failure by which an ingest step refuses to replace stored tables with nothing (``cojudge
        materialize`` exits 2 on it); ``kept``: the tables it leaves as they were."""
        return dg.Failure(
            description=f"{reason}; {kept} left as they were (set allow_empty on the corpus "
            f"resource, or pass --allow-empty, if you mean it)",
            metadata={REFUSED: True, "corpus": str(self.root()), "layout": self.layout},
        )

    def require_input(self) -> None:
        """Raise the refusal when the corpus is missing or has no input of its layout (unless ``allow_empty``):
        checked by each ingest asset before it reads, so a wrong path never empties a table."""
        problem = None if self.allow_empty else corpus_input_problem(self.root(), self.layout)
        if problem:
            raise self.refuse(problem)

    def packages(self) -> dict[str, ProblemPackage]:
        """The problem packages with tests under problems/ (none for the CodeNet layout, which has no tests);
        a package that cannot be read is left out (it is in the quarantine table)."""
        folder = self.root() / "problems"
        return scan_problems(folder)[0] if self.layout != "codenet" and folder.is_dir() else {}
