"""Resources shared by the asset groups, bound in :mod:`cojudge_assets.definitions`."""

from __future__ import annotations

import contextlib
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBIOManager, DuckDBResource

from cojudge_assets.core.execution.contest_judge import ContestJudge
from cojudge_assets.core.ingest.corpus_input import corpus_input_problem
from cojudge_assets.core.ingest.kattis import ProblemPackage, scan_problems
from cojudge_assets.judges.config import DEFAULT_JUDGES_FILE, JudgeSpec, find_judge, load_judges
from cojudge_assets.judges.store import DuckDBStore
from cojudge_assets.settings import DEFAULT_CORPUS

REFUSED = "cojudge/refused"  # metadata key of a dg.Failure by which a step refuses to replace stored tables


def database_path(duckdb: DuckDBResource | DuckDBIOManager) -> Path:
    """The DuckDB file a ``duckdb`` resource (or the IO manager) is bound to. Inside a run its ``database`` is the
    path; on the Definitions of a deployment that named the file by ``dg.EnvVar`` (definitions.py), the variable's
    value now."""
    database: str = duckdb.database
    if isinstance(database, dg.EnvVar):
        database = database.get_value() or ""
    return Path(database)


def output_dir(duckdb: DuckDBResource) -> Path:
    """Where files beside the tables go (the requests JSONL, the figures, the report): the folder of the DuckDB
    file the asset's ``duckdb`` resource is bound to, so each Definitions writes beside its own tables."""
    return database_path(duckdb).resolve().parent


@contextlib.contextmanager
def judge_store(duckdb: DuckDBResource) -> Iterator:
    """The judge store the ``duckdb`` resource stands for: the deployed profile's Postgres store
    (defs/deployed.py ``DeployedStores``), else the tables of the DuckDB file itself."""
    stores = getattr(duckdb, "judge_store", None)
    if stores is not None:
        with stores() as store:
            yield store
        return
    with duckdb.get_connection() as conn:
        yield DuckDBStore(conn)


class ContestJudgeResource(dg.ConfigurableResource):
    """The sandboxed contest judge (compiles and runs untrusted code), with its cache folder: the one settings.py
    resolved (``--cache``, ``$COJUDGE_CACHE``, ``$XDG_CACHE_HOME/cojudge``, ``~/.cache/cojudge``), bound by
    definitions.py. Compiled programs and results go to its ``compile/``, the sandbox's runner and the batch javac
    to its ``runner/`` and ``javac/``; the judge itself reads no environment."""

    cache: str
    workers: int = 0  # 0: one per core

    def judge(self) -> ContestJudge:
        root = Path(self.cache)
        return ContestJudge(root / "compile", build_dir=root, workers=self.workers or None)


class CorpusResource(dg.ConfigurableResource):
    """Where the contest data live and in which layout.

    ``layout`` is ``pages`` (saved submission pages + chat logs + Kattis
    problems, like the demo corpus), ``progsnap2`` or ``codenet`` (see
    core/ingest/corpus.py). ``path`` is the corpus folder; a relative path is taken
    from the working folder.
    """

    path: str = str(DEFAULT_CORPUS)
    layout: str = "pages"
    window_start: str = ""  # "YYYY-MM-DD HH:MM:SS"; empty: from the corpus's contest.yaml
    window_end: str = ""
    allow_empty: bool = False  # let a corpus that yields no attempts replace the stored tables with empty ones

    def root(self) -> Path:
        p = Path(self.path)
        return p if p.is_absolute() else Path.cwd() / p

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


class JudgesResource(dg.ConfigurableResource):
    """The judges config file of the code location (judges/config.py), the same file whose judges became the judge
    partitions when the Definitions were built. Whatever reads the judges at run time (the report, the drift
    sensor, the command's run tags) reads them from here, never from the environment."""

    path: str = str(DEFAULT_JUDGES_FILE)

    def specs(self) -> list[JudgeSpec]:
        """Every judge of the file, enabled or not, in file order (parsed once per content of the file)."""
        return load_judges(Path(self.path))

    def enabled(self) -> list[JudgeSpec]:
        return [spec for spec in self.specs() if spec.enabled]

    def find(self, name: str, corpus: CorpusResource | None = None) -> JudgeSpec:
        """A judge of this file, or one the corpus's layout brings (when a corpus is given), by name."""
        if corpus is None:
            return find_judge(name, path=Path(self.path))
        return find_judge(name, corpus.root(), corpus.layout, path=Path(self.path))
