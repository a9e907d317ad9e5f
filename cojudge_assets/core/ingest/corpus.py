"""One entry point for every corpus layout: what the ingest group reads.

* ``pages``: the contest layout of the demo corpus and the seed study
  (``problems/`` Kattis packages, ``pages/<participant>/...`` saved submission
  pages, ``logs/<participant>/...`` chat logs, optional ``contest.yaml`` with the
  contest window and extra Result strings);
* ``progsnap2``: ``progsnap2/MainTable.csv`` + CodeStates (core/ingest/progsnap2.py),
  problems from ``problems/`` when present;
* ``codenet``: Project CodeNet's metadata/data/problem_descriptions
  (core/ingest/codenet.py);
* ``icescore``: the ICE-Score release (core/ingest/icescore.py): problems and attempts from its grade files
  under ``data/``. Its judge files are read by the judges' import, which versions them itself, so this
  layout's fingerprint covers ``data/`` only (FINGERPRINT_SCOPE).

Chat logs are read from ``logs/`` in every layout that has that folder.

Problem packages are read one by one: a broken package is a quarantine row
(stage ``problems``) and the others are read. The attempts of a quarantined
package's problem are quarantined too, with the reason "its problem package was
quarantined" (they keep their raw row in the reconciliation; nothing is judged
without its statement).
"""

from __future__ import annotations

import hashlib
import os
import stat
from dataclasses import dataclass
from datetime import datetime, tzinfo
from pathlib import Path

import polars as pl
import yaml

from cojudge_assets.core.constants import LAYOUTS
from cojudge_assets.core.ingest.attempts import QUARANTINE_SCHEMA, PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.codenet import read_codenet, read_codenet_problems
from cojudge_assets.core.ingest.context import read_logs
from cojudge_assets.core.ingest.icescore import LAYOUT as ICESCORE
from cojudge_assets.core.ingest.icescore import read_icescore_attempts
from cojudge_assets.core.ingest.kattis import scan_problems
from cojudge_assets.core.ingest.pages import DEFAULT_RESULT_VOCABULARY, contest_zone, parse_instant
from cojudge_assets.core.ingest.problems import PROBLEM_SCHEMA, problems_table
from cojudge_assets.core.ingest.progsnap2 import raw_row_count as progsnap2_raw_rows
from cojudge_assets.core.ingest.progsnap2 import read_progsnap2

assert ICESCORE in LAYOUTS
FINGERPRINT_SCOPE = {ICESCORE: "data"}  # layout -> the only folder its data version covers


@dataclass
class ContestSettings:
    window_start: datetime | None  # naive UTC, like every stored clock
    window_end: datetime | None
    vocabulary: dict[str, str]
    zone: tzinfo | None = None  # contest.yaml ``timezone``: where a clock without zone is read; None: not declared


def contest_settings(corpus: Path, *, window_start: str = "", window_end: str = "") -> ContestSettings:
    """The contest window, Result vocabulary and time zone: ``contest.yaml`` of the corpus (``timezone``: an IANA
    name or an offset; the window is read in it), overridden by arguments."""
    path = Path(corpus) / "contest.yaml"
    meta = (yaml.safe_load(path.read_text(encoding="utf-8")) or {}) if path.is_file() else {}
    window = meta.get("window") or {}
    vocabulary = dict(DEFAULT_RESULT_VOCABULARY)
    for code, label in (meta.get("result_strings") or {}).items():
        vocabulary[str(label).strip().lower()] = str(code)
    try:
        zone = contest_zone(meta.get("timezone"))
    except ValueError as exc:
        raise ValueError(f"{path}: {exc}") from None

    def edge(text: str) -> datetime | None:
        instant = parse_instant(text, zone)
        if instant is not None and instant.problem:
            raise ValueError(f"{path}: window {text!r}: {instant.problem}")
        return instant.utc if instant is not None else None

    start = edge(window_start or str(window.get("start") or ""))
    end = edge(window_end or str(window.get("end") or ""))
    return ContestSettings(start, end, vocabulary, zone)


@dataclass
class CorpusTables:
    attempts: pl.DataFrame
    prompt_logs: pl.DataFrame
    quarantine: pl.DataFrame
    raw_files: int  # raw attempt files seen (pages, or rows of a table)


def read_corpus(
    corpus: Path, layout: str, problems: dict[str, str], settings: ContestSettings, pages: pl.DataFrame | None = None
) -> CorpusTables:
    """Attempts, prompt logs and quarantine of a corpus; ``problems`` maps id -> name."""
    rejected_problems = problem_quarantine(corpus, layout)
    quarantined_ids = {Path(r["source_path"]).name: r["reason"] for r in rejected_problems}
    if layout == "pages":
        pages = pages if pages is not None else list_pages(corpus)
        rules = PageRules(
            problem_ids=set(problems),
            vocabulary=settings.vocabulary,
            window_start=settings.window_start,
            window_end=settings.window_end,
            quarantined_problems=quarantined_ids,
            zone=settings.zone,
        )
        attempts, rejected = read_attempts(corpus, pages, rules)
        raw = len(pages)
    elif layout == "progsnap2":
        attempts, rejected, raw = read_progsnap2(corpus, vocabulary=settings.vocabulary, zone=settings.zone)
    elif layout == "codenet":
        attempts, rejected, raw = read_codenet(corpus)
    elif layout == ICESCORE:
        _, attempts, rejected, raw = read_icescore_attempts(corpus)
    else:
        raise ValueError(f"corpus layout {layout!r} is not supported (expected one of {', '.join(LAYOUTS)})")
    if quarantined_ids and layout != "pages":  # pages were checked one by one above
        orphaned = attempts.filter(pl.col("problem_id").is_in(list(quarantined_ids)))
        attempts = attempts.filter(~pl.col("problem_id").is_in(list(quarantined_ids)))
        rejected = pl.concat(
            [
                rejected,
                pl.DataFrame(
                    [
                        {
                            "source_path": r["source_path"],
                            "stage": "fields",
                            "field": "Problem",
                            "reason": f"{r['source_path']}: its problem package was quarantined "
                            f"({quarantined_ids[r['problem_id']]})",
                        }
                        for r in orphaned.iter_rows(named=True)
                    ],
                    schema=QUARANTINE_SCHEMA,
                ),
            ]
        )
    logs, log_rejected = read_logs(corpus, problems)
    quarantine = pl.concat(
        [
            rejected,
            pl.DataFrame(log_rejected, schema=QUARANTINE_SCHEMA),
            pl.DataFrame(rejected_problems, schema=QUARANTINE_SCHEMA),
        ]
    )
    return CorpusTables(attempts, logs, quarantine, raw_files=raw)


NOT_RAW_STAGES = ("logs", "problems")  # quarantine rows that are not raw attempt inputs


def raw_input_count(corpus: Path, layout: str) -> int:
    """How many raw attempt inputs the corpus holds, counted apart from reading them.

    pages: paths under pages/ (see :func:`~cojudge_assets.core.ingest.attempts.list_pages`); progsnap2: Submit
    rows of MainTable.csv and its lines the CSV reader cannot parse; codenet: rows of the metadata/pXXXXX.csv
    tables; icescore: generations in the grade files.
    """
    root = Path(corpus)
    if layout == "pages":
        return len(list_pages(root))
    if layout == "progsnap2":
        return progsnap2_raw_rows(root)
    if layout == "codenet":
        return sum(
            pl.scan_csv(p, infer_schema=False).select(pl.len()).collect().item()
            for p in (root / "metadata").glob("p*.csv")
            if p.stem[1:].isdigit()
        )
    if layout == ICESCORE:
        return read_icescore_attempts(root)[3]  # generations in the grade files
    raise ValueError(f"corpus layout {layout!r} is not supported (expected one of {', '.join(LAYOUTS)})")


def problem_quarantine(corpus: Path, layout: str) -> list[dict]:
    """Quarantine rows of the problem packages under ``problems/`` that cannot be read (none for CodeNet and
    ICE-Score, which have no packages)."""
    if layout in ("codenet", ICESCORE):
        return []
    return scan_problems(Path(corpus) / "problems")[1]


def read_problem_table(corpus: Path, layout: str) -> pl.DataFrame:
    """The problems of a corpus: Kattis packages under problems/, CodeNet's descriptions, or ICE-Score's grade
    files (with three more columns: language, reference_solution, summary)."""
    if layout == "codenet":
        return read_codenet_problems(corpus)
    if layout == ICESCORE:
        return read_icescore_attempts(corpus)[0]
    folder = Path(corpus) / "problems"
    return problems_table(folder) if folder.is_dir() else pl.DataFrame(schema=PROBLEM_SCHEMA)


def fingerprint(corpus: Path, layout: str = "", *settings: str) -> str:
    """sha256 over every file under ``corpus`` (relative path and bytes, in path order), ``layout`` and ``settings``.

    The corpus's data version: when it is unchanged, nothing read from it needs reading again. A layout in
    FINGERPRINT_SCOPE covers only that folder (ICE-Score: ``data/``; a changed judge file re-imports that
    judge, not the corpus). Symlinks are not followed (their target text is hashed), special files are not
    opened (their type is hashed), and a file that cannot be read contributes its error, so a damaged corpus
    still has one.
    """
    digest = hashlib.sha256("\0".join((layout, *settings)).encode())
    scope = corpus / FINGERPRINT_SCOPE[layout] if layout in FINGERPRINT_SCOPE else corpus
    entries: list[Path] = []
    for folder, dirs, files in os.walk(scope):  # os.walk never descends into symlinked directories
        dirs.sort()
        entries.extend(
            Path(folder) / name for name in [*files, *(d for d in dirs if os.path.islink(os.path.join(folder, d)))]
        )
    for path in sorted(entries):
        digest.update(os.fsencode(path.relative_to(corpus)) + b"\0")  # a name's bytes, UTF-8 or not
        mode = path.lstat().st_mode
        if stat.S_ISLNK(mode):
            digest.update(b"symlink\0" + os.fsencode(os.readlink(path)))
        elif not stat.S_ISREG(mode):
            digest.update(f"special {stat.S_IFMT(mode)}".encode())
        else:
            try:
                with path.open("rb") as handle:
                    for chunk in iter(lambda: handle.read(1 << 20), b""):
                        digest.update(chunk)
            except OSError as exc:
                digest.update(f"unreadable {exc.errno}".encode())
    return digest.hexdigest()
