"""Reading Kattis problem packages (problemarchive.org layout).

A package is a folder ``<problem_id>/`` with ``problem.yaml``,
``problem_statement/problem.en.md`` (or ``.tex``/``.html``), ``data/sample`` and
``data/secret`` holding ``<name>.in`` / ``<name>.ans`` pairs, and optionally
``submissions/<category>/`` with jury programs. Limits are read from
``limits.time_limit_s`` / ``limits.memory_mb`` (the shared corpora's form), else
``limits.time_limit`` / ``limits.memory``; a package that states none gets the
defaults below, and :attr:`ProblemPackage.limits_stated` says so.
"""

from __future__ import annotations

from pathlib import Path

import yaml
from pydantic import BaseModel

from cojudge_assets.core.ingest.pages import escaped_name, utf8_name

DEFAULT_TIME_LIMIT_S = 2.0
DEFAULT_MEMORY_MB = 256
STATEMENT_NAMES = ("problem.en.md", "problem.md", "problem.en.html", "problem.en.tex", "problem.tex")


class ProblemFormatError(ValueError):
    """A problem package that cannot be read; the message names the file, ``field`` the field or file part."""

    def __init__(self, message: str, field: str | None = None):
        super().__init__(message)
        self.field = field


class TestCase(BaseModel):
    name: str  # "sample/1", "secret/07"
    input_path: Path
    answer_path: Path


class ProblemPackage(BaseModel):
    problem_id: str
    name: str
    root: Path
    statement: str
    statement_path: Path | None
    time_limit_s: float
    memory_mb: int
    limits_stated: bool
    float_tolerance: float | None
    samples: list[TestCase]
    secret: list[TestCase]

    @property
    def tests(self) -> list[TestCase]:
        """Samples first, then secret tests, each group in file-name order (judging order)."""
        return [*self.samples, *self.secret]

    def submissions(self, category: str) -> list[Path]:
        folder = self.root / "submissions" / category
        return sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []


def _pairs(folder: Path, group: str) -> list[TestCase]:
    if not folder.is_dir():
        return []
    cases = []
    for inp in sorted(folder.glob("*.in")):
        ans = inp.with_suffix(".ans")
        if not ans.is_file():
            raise ProblemFormatError(
                f"{inp}: test input has no answer file {ans.name} beside it", field=f"data/{group}/{ans.name}"
            )
        cases.append(TestCase(name=f"{group}/{inp.stem}", input_path=inp, answer_path=ans))
    return cases


def _number(meta: dict, path: Path, *keys: str) -> float | None:
    limits = meta.get("limits") or {}
    if not isinstance(limits, dict):
        raise ProblemFormatError(
            f"{path}: field 'limits' must be a mapping, got {type(limits).__name__}", field="limits"
        )
    for key in keys:
        if key in limits and limits[key] is not None:
            try:
                value = float(limits[key])
            except (TypeError, ValueError):
                value = float("nan")
            if value != value or value in (float("inf"), float("-inf")) or value <= 0:
                raise ProblemFormatError(
                    f"{path}: field 'limits.{key}' must be a positive number, got {limits[key]!r}",
                    field=f"limits.{key}",
                )
            return value
    return None


def read_problem(root: Path) -> ProblemPackage:
    """Read one package folder; raise :class:`ProblemFormatError` naming the file and field."""
    root = Path(root)
    meta_path = root / "problem.yaml"
    if not meta_path.is_file():
        raise ProblemFormatError(f"{root}: no problem.yaml (expected a Kattis problem package)", field="problem.yaml")
    try:
        meta = yaml.safe_load(meta_path.read_text(encoding="utf-8")) or {}
    except (yaml.YAMLError, UnicodeDecodeError) as exc:
        reason = str(exc).replace("\n", " ")
        raise ProblemFormatError(f"{meta_path}: not valid UTF-8 YAML ({reason})", field="problem.yaml") from None
    if not isinstance(meta, dict):
        raise ProblemFormatError(
            f"{meta_path}: expected a mapping at top level, got {type(meta).__name__}", field="problem.yaml"
        )
    statement_path = next(
        (root / "problem_statement" / n for n in STATEMENT_NAMES if (root / "problem_statement" / n).is_file()),
        None,
    )
    try:
        statement = statement_path.read_text(encoding="utf-8") if statement_path else ""
    except UnicodeDecodeError as exc:
        raise ProblemFormatError(
            f"{statement_path}: not valid UTF-8 (byte {exc.start})", field="problem_statement"
        ) from None
    time_limit = _number(meta, meta_path, "time_limit_s", "time_limit")
    memory = _number(meta, meta_path, "memory_mb", "memory")
    tolerance = None
    flags = str(meta.get("validator_flags") or "").split()
    if "float_tolerance" in flags:
        try:
            tolerance = float(flags[flags.index("float_tolerance") + 1])
        except (IndexError, ValueError) as err:
            raise ProblemFormatError(
                f"{meta_path}: field 'validator_flags' has float_tolerance without a number", field="validator_flags"
            ) from err
    return ProblemPackage(
        problem_id=root.name,
        name=str(meta.get("name") or root.name),
        root=root,
        statement=statement,
        statement_path=statement_path,
        time_limit_s=time_limit if time_limit is not None else DEFAULT_TIME_LIMIT_S,
        memory_mb=int(memory) if memory is not None else DEFAULT_MEMORY_MB,
        limits_stated=time_limit is not None,
        float_tolerance=tolerance,
        samples=_pairs(root / "data" / "sample", "sample"),
        secret=_pairs(root / "data" / "secret", "secret"),
    )


def read_problems(folder: Path) -> dict[str, ProblemPackage]:
    """Every package directly under ``folder`` (folders with a problem.yaml), by problem id.

    Strict: the first broken package raises. An ingest uses :func:`scan_problems`, which quarantines it.
    """
    folder = Path(folder)
    if not folder.is_dir():
        raise ProblemFormatError(f"{folder}: problems folder does not exist")
    return {p.name: read_problem(p) for p in sorted(folder.iterdir()) if (p / "problem.yaml").is_file()}


def scan_problems(folder: Path) -> tuple[dict[str, ProblemPackage], list[dict]]:
    """(packages that read, quarantine rows of those that did not), over every folder under ``folder``.

    One broken package (invalid problem.yaml, a limit that is not a positive number, a ``.in`` without
    its ``.ans``, a statement that is not UTF-8, a folder without problem.yaml, a symlink that dangles or
    leaves the corpus) is one quarantine row,
    stage ``problems``, ``source_path`` ``problems/<id>``; the other packages are read. A package without
    a statement is read (some corpora ship none: ConDefects, CSEDM); its statement is empty.
    """
    folder = Path(folder)
    packages: dict[str, ProblemPackage] = {}
    rejected: list[dict] = []
    if not folder.is_dir():
        return packages, rejected
    corpus = folder.resolve().parent
    for root in sorted(p for p in folder.iterdir() if p.is_dir() or p.is_symlink()):
        source = f"{folder.name}/{root.name}"
        if not utf8_name(root.name):  # names are data: quarantined under the escaped name, never a crash
            source = escaped_name(source)
            rejected.append(
                {
                    "source_path": source,
                    "stage": "problems",
                    "field": "name",
                    "reason": f"{source}: package folder name is not valid UTF-8 (undecodable bytes shown as "
                    f"\\x escapes); not read",
                }
            )
            continue
        if root.is_symlink():  # followed only when it stays inside the corpus and names a folder
            target = root.resolve()
            if not target.is_dir() or not target.is_relative_to(corpus):
                rejected.append(
                    {
                        "source_path": source,
                        "stage": "problems",
                        "field": "symlink",
                        "reason": f"{source}: symlink to {root.readlink()} dangles or leaves the corpus (not followed)",
                    }
                )
                continue
        try:
            packages[root.name] = read_problem(root)
        except ProblemFormatError as exc:
            rejected.append(
                {
                    "source_path": source,
                    "stage": "problems",
                    "field": exc.field,
                    "reason": f"{source}: package quarantined: {exc}",
                }
            )
        except Exception as exc:  # noqa: BLE001 - any other failure of one package must not stop the others
            rejected.append(
                {
                    "source_path": source,
                    "stage": "problems",
                    "field": "package",
                    "reason": f"{source}: package quarantined: {type(exc).__name__}: {exc}",
                }
            )
    return packages, rejected
