"""From a folder of saved submission pages to the ``attempts`` and ``quarantine`` tables.

Layout: ``<corpus>/pages/<participant>/<anything>.<html|htm|md|txt>``. Every raw
file under ``pages/`` ends as exactly one row of ``attempts`` or of
``quarantine`` (stage, field, reason naming the file), never neither.

``attempt_uid`` is the page's path relative to ``pages/`` (``u03/pairsum-02.md``):
a natural key that does not move when sorting changes (V4). The turn ``k`` within
a (participant, problem) trajectory is the rank of the Submit clock (V1/V2), ties
broken by the number in the file name, then the path.
"""

from __future__ import annotations

import hashlib
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path

import polars as pl

from cojudge_assets.core.contest_judge import normalize_language
from cojudge_assets.core.pages import (
    DEFAULT_RESULT_VOCABULARY,
    PAGE_FORMATS,
    PageError,
    decode_page,
    map_verdict,
    parse_clock,
    parse_page,
)

ATTEMPT_SCHEMA = {
    "attempt_uid": pl.String,
    "source_path": pl.String,
    "participant": pl.String,
    "problem_id": pl.String,
    "turn": pl.Int64,
    "submitted_at": pl.Datetime("us"),
    "page_saved_at": pl.Datetime("us"),
    "file_order": pl.Int64,
    "submission_id": pl.String,
    "language": pl.String,
    "language_label": pl.String,
    "code": pl.String,
    "code_sha256": pl.String,
    "result": pl.String,
    "verdict": pl.String,
    "accepted": pl.Boolean,
    "page_format": pl.String,
}
QUARANTINE_SCHEMA = {"source_path": pl.String, "stage": pl.String, "field": pl.String, "reason": pl.String}
PAGE_SCHEMA = {"source_path": pl.String, "format": pl.String, "bytes": pl.Int64, "sha256": pl.String}


@dataclass
class PageRules:
    """What a page must satisfy; the vocabulary maps Result strings (lower-case) to verdicts."""

    problem_ids: set[str]
    vocabulary: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_RESULT_VOCABULARY))


def list_pages(corpus: Path) -> pl.DataFrame:
    """One row per raw file under ``pages/`` (any extension), with its size and hash."""
    root = Path(corpus) / "pages"
    rows = []
    for path in sorted(p for p in root.rglob("*") if p.is_file()) if root.is_dir() else []:
        raw = path.read_bytes()
        rows.append({"source_path": path.relative_to(corpus).as_posix(),
                     "format": PAGE_FORMATS.get(path.suffix.lower(), ""),
                     "bytes": len(raw), "sha256": hashlib.sha256(raw).hexdigest()})
    return pl.DataFrame(rows, schema=PAGE_SCHEMA)


def _file_order(name: str) -> int | None:
    numbers = re.findall(r"(\d+)", Path(name).stem)
    return int(numbers[-1]) if numbers else None


def read_page(corpus: Path, source_path: str, rules: PageRules) -> dict:
    """One page to an attempt row (without its turn); raises PageError to quarantine it."""
    path = Path(corpus) / source_path
    page_format = PAGE_FORMATS.get(path.suffix.lower())
    if page_format is None:
        raise PageError("discover", None, f"{source_path}: extension {path.suffix or '(none)'!r} is not a "
                                          f"page format (expected .html, .htm, .md or .txt)")
    text = decode_page(path.read_bytes(), source_path)
    page = parse_page(text, page_format)
    parts = Path(source_path).parts
    participant = parts[1] if len(parts) > 2 else page.fields.get("user", "")
    if not participant:
        raise PageError("fields", "User", f"{source_path}: no participant folder and no User field")
    result = page.fields.get("result")
    if result is None:
        raise PageError("fields", "Result", f"{source_path}: no Result field (expected e.g. 'Result: Accepted')")
    verdict = map_verdict(result, rules.vocabulary)
    if verdict is None:
        raise PageError("fields", "Result", f"{source_path}: Result {result!r} is not in the verdict vocabulary "
                                            f"(expected one of {sorted(set(rules.vocabulary))})")
    submit = page.fields.get("submit")
    if submit is None:
        raise PageError("fields", "Submit", f"{source_path}: no Submit field (expected 'Submit: YYYY-MM-DD HH:MM:SS')")
    submitted_at = parse_clock(submit)
    if submitted_at is None:
        raise PageError("fields", "Submit", f"{source_path}: Submit {submit!r} is not a date and time "
                                            f"(expected YYYY-MM-DD HH:MM[:SS])")
    problem_field = page.fields.get("problem")
    if problem_field is None:
        raise PageError("fields", "Problem", f"{source_path}: no Problem field")
    problem_id = re.split(r"\s+-\s+|\s", problem_field.strip(), maxsplit=1)[0]
    if problem_id not in rules.problem_ids:
        raise PageError("fields", "Problem", f"{source_path}: Problem {problem_field!r} names no known problem "
                                             f"(expected one of {sorted(rules.problem_ids)})")
    label = page.fields.get("language")
    if not label:
        raise PageError("fields", "Language", f"{source_path}: no Language field")
    try:
        language = normalize_language(label)
    except ValueError:
        language = label.strip().lower()
    if not page.code.strip():
        raise PageError("code", "code", f"{source_path}: no code block (expected <pre>, <code>, a fenced block "
                                        f"or BEGIN/END SOURCE markers)")
    return {
        "attempt_uid": Path(*parts[1:]).as_posix() if len(parts) > 1 else source_path,
        "source_path": source_path,
        "participant": participant,
        "problem_id": problem_id,
        "submitted_at": submitted_at,
        "page_saved_at": page.page_saved_at,
        "file_order": _file_order(source_path),
        "submission_id": page.fields.get("submission"),
        "language": language,
        "language_label": label,
        "code": page.code,
        "code_sha256": hashlib.sha256(page.code.encode()).hexdigest(),
        "result": result,
        "verdict": verdict,
        "accepted": verdict == "AC",
        "page_format": page_format,
    }


def read_attempts(corpus: Path, pages: pl.DataFrame, rules: PageRules) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every listed page into ``attempts`` or ``quarantine``; turns from the Submit clock."""
    rows, rejected = [], []
    first_of_hash: dict[str, str] = {}
    for page in pages.iter_rows(named=True):
        source = page["source_path"]
        original = first_of_hash.setdefault(page["sha256"], source)
        if original != source:
            rejected.append({"source_path": source, "stage": "discover", "field": None,
                             "reason": f"{source}: byte-identical duplicate of {original}"})
            continue
        try:
            rows.append(read_page(corpus, source, rules))
        except PageError as exc:
            rejected.append({"source_path": source, "stage": exc.stage, "field": exc.field, "reason": exc.reason})
        except Exception as exc:  # a parser crash must not lose the file either
            rejected.append({"source_path": source, "stage": "parse", "field": None,
                             "reason": f"{source}: could not be parsed ({type(exc).__name__}: {exc})"})
    attempts = pl.DataFrame(rows, schema={k: v for k, v in ATTEMPT_SCHEMA.items() if k != "turn"})
    attempts = assign_turns(attempts).select(list(ATTEMPT_SCHEMA))
    return attempts, pl.DataFrame(rejected, schema=QUARANTINE_SCHEMA)


def assign_turns(attempts: pl.DataFrame,
                 order: tuple[str, ...] = ("submitted_at", "file_order", "source_path")) -> pl.DataFrame:
    """Turn k = rank within (participant, problem) by ``order`` (default: Submit clock, file order, path)."""
    ordered = attempts.sort(["participant", "problem_id", *order], nulls_last=True)
    return ordered.with_columns(pl.int_range(1, pl.len() + 1).over(["participant", "problem_id"]).alias("turn"))


def order_disagreements(attempts: pl.DataFrame) -> pl.DataFrame:
    """Trajectories whose Submit order differs from their file-name order (where file numbers exist)."""
    numbered = attempts.filter(pl.col("file_order").is_not_null())
    by_file = numbered.with_columns(
        pl.col("file_order").rank("ordinal").over(["participant", "problem_id"]).cast(pl.Int64).alias("file_rank"),
        pl.col("turn").rank("ordinal").over(["participant", "problem_id"]).cast(pl.Int64).alias("submit_rank"),
    )
    return by_file.filter(pl.col("file_rank") != pl.col("submit_rank")).select(
        "participant", "problem_id", "attempt_uid", "submitted_at", "file_order", "turn")


def outside_window(attempts: pl.DataFrame, start: datetime, end: datetime) -> pl.DataFrame:
    return attempts.filter((pl.col("submitted_at") < start) | (pl.col("submitted_at") > end)).select(
        "attempt_uid", "submitted_at")
