"""From a folder of saved submission pages to the ``attempts`` and ``quarantine`` tables.

Layout: ``<corpus>/pages/<participant>/<anything>.<html|htm|md|txt>``. Every raw
path under ``pages/`` ends as exactly one row of ``attempts`` or of
``quarantine`` (stage, field, reason naming the file), never neither, and
:func:`reconcile` checks it. A raw path is every entry that is not a plain
directory: regular files, symlinks, fifos, sockets, devices, and directories
named like a page (``x.html/``).

Names are data: a file or folder whose name is not valid UTF-8 is quarantined
(stage ``discover``, field ``name``) under its escaped path (:func:`escaped_name`:
``os.fsencode`` with backslash escapes); such a folder is not walked.

Symlinks are never followed out of the corpus. A symlink that dangles, loops, or
resolves outside the corpus folder is quarantined (stage ``discover``, field
``symlink``). A symlink to a directory is quarantined even inside the corpus (not
walked: no cycles, no file counted twice). A symlink to a regular file inside the
corpus is read like the file (corpora assembled with links stay usable); when its
target is itself a page, the two are byte-identical and the second in path order
is quarantined as a duplicate.

A page is also quarantined when it is *ambiguous*: two Result (Submit, Problem,
Language) fields that disagree, a Submit clock outside the contest window or in
the future, a language the contest judge does not know, a source block that is
empty (the judge notes must never become the code). A page whose problem package
was quarantined is quarantined too, with that reason: its label is real, but no
judge could be sent its statement and no test could re-run it.

``attempt_uid`` is the page's path relative to ``pages/`` (``u03/pairsum-02.md``):
a natural key that does not move when sorting changes (V4). The turn ``k`` within
a (participant, problem) trajectory is the rank of the Submit clock (V1/V2), ties
broken by the number in the file name, then the path.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Iterator
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta, tzinfo
from pathlib import Path
from typing import TYPE_CHECKING, cast

import polars as pl

from cojudge_assets.core.execution.contest_judge.languages import normalize_language
from cojudge_assets.core.ingest.pages import (
    DEFAULT_LIMITS,
    DEFAULT_RESULT_VOCABULARY,
    PAGE_FORMATS,
    Instant,
    PageError,
    PageLimits,
    decode_page,
    escaped_name,
    map_verdict,
    parse_instant,
    parse_page,
    utf8_name,
)

if TYPE_CHECKING:
    from polars._typing import PolarsDataType  # the dtype alias polars' own signatures use

ATTEMPT_SCHEMA: dict[str, PolarsDataType] = {
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
# kind: file, symlink, special, directory, unreadable; problem: why discovery already rejects it (else null)
PAGE_SCHEMA = {
    "source_path": pl.String,
    "format": pl.String,
    "bytes": pl.Int64,
    "sha256": pl.String,
    "kind": pl.String,
    "problem": pl.String,
    "problem_field": pl.String,
}
# a Submit clock without zone is taken as UTC: "in the future" allows the widest UTC offset (+14 h)
FUTURE_SLACK = timedelta(hours=14)


@dataclass
class PageRules:
    """What a page must satisfy; the vocabulary maps Result strings (lower-case) to verdicts.

    ``window_start``/``window_end``: the contest window (Submit outside it: quarantined); ``now``: the
    clock a Submit must not pass (default: the time of reading); ``quarantined_problems``: problem id ->
    why its package was quarantined.
    """

    problem_ids: set[str]
    vocabulary: dict[str, str] = field(default_factory=lambda: dict(DEFAULT_RESULT_VOCABULARY))
    window_start: datetime | None = None
    window_end: datetime | None = None
    now: datetime | None = None
    quarantined_problems: dict[str, str] = field(default_factory=dict)
    limits: PageLimits = DEFAULT_LIMITS
    zone: tzinfo | None = None  # contest.yaml ``timezone``: where a Submit without zone is read (pages.parse_instant)


def _hash_file(path: Path) -> str:
    with path.open("rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _walk(root: Path) -> Iterator[os.DirEntry[str]]:
    """Every entry under ``root`` (os.DirEntry), never following a symlink; directories walked in name order.
    A directory whose name is not valid UTF-8 is yielded, never walked (its whole path is not text)."""
    stack: list[str | Path] = [root]
    while stack:
        folder = stack.pop()
        try:
            entries = sorted(os.scandir(folder), key=lambda e: e.name)
        except OSError:
            continue
        yield from entries
        stack.extend(e.path for e in reversed(entries) if e.is_dir(follow_symlinks=False) and utf8_name(e.name))


def _special_kind(mode: int) -> str:
    for test, name in (
        (stat.S_ISFIFO, "a fifo"),
        (stat.S_ISSOCK, "a socket"),
        (stat.S_ISCHR, "a character device"),
        (stat.S_ISBLK, "a block device"),
    ):
        if test(mode):
            return name
    return "not a regular file"


def discover(corpus: Path, path: Path, limits: PageLimits = DEFAULT_LIMITS) -> dict:
    """One raw path as a row of :data:`PAGE_SCHEMA`; ``problem`` says why it cannot be a page, if so.

    Never follows a symlink out of the corpus and never opens a special file.
    """
    corpus, path = Path(corpus), Path(path)
    rel = path.relative_to(corpus).as_posix()
    row: dict = {
        "source_path": rel,
        "format": PAGE_FORMATS.get(path.suffix.lower(), ""),
        "bytes": None,
        "sha256": None,
        "kind": "file",
        "problem": None,
        "problem_field": None,
    }

    def reject(kind: str, problem_field: str, problem: str) -> dict:
        return {**row, "kind": kind, "problem_field": problem_field, "problem": f"{rel}: {problem}"}

    if path.is_symlink():
        target = os.readlink(path)
        try:
            resolved = path.resolve(strict=True)
        except (OSError, RuntimeError):
            return reject("symlink", "symlink", f"dangling symlink to {target!r} (not followed)")
        if not resolved.is_relative_to(corpus.resolve()):
            return reject("symlink", "symlink", f"symlink to {target!r} leaves the corpus (not followed)")
        if resolved.is_dir():
            return reject(
                "symlink",
                "symlink",
                f"symlink to the directory {target!r} (directory links are not "
                f"walked; the files are counted where they live)",
            )
        mode = resolved.stat().st_mode
    else:
        mode = path.lstat().st_mode
    if stat.S_ISDIR(mode):
        return reject("directory", "file type", "a directory named like a page (expected a file)")
    if not stat.S_ISREG(mode):
        return reject("special", "file type", f"{_special_kind(mode)} (expected a regular file; not opened)")
    size = path.stat().st_size
    row["bytes"] = size
    if size > limits.max_bytes:
        return reject("file", "size", f"{size} bytes, over the page size limit of {limits.max_bytes}")
    try:
        row["sha256"] = _hash_file(path)
    except OSError as exc:
        return reject("unreadable", "permissions", f"cannot be read ({type(exc).__name__}: {exc.strerror or exc})")
    return row


def _bad_name(corpus: Path, entry: os.DirEntry[str]) -> dict:
    """The row of a file or folder whose name is not valid UTF-8: its path escaped, quarantined (a folder is not
    walked: one row stands for it and everything in it)."""
    rel = escaped_name(Path(entry.path).relative_to(corpus).as_posix())
    folder = entry.is_dir(follow_symlinks=False)
    return {
        "source_path": rel,
        "format": "",
        "bytes": None,
        "sha256": None,
        "kind": "directory" if folder else "file",
        "problem": f"{rel}: {'folder' if folder else 'file'} name is not valid UTF-8 (undecodable bytes shown as "
        f"\\x escapes){'; the folder is not read' if folder else ''}; rename it to UTF-8 to ingest it",
        "problem_field": "name",
    }


def list_pages(corpus: Path, limits: PageLimits = DEFAULT_LIMITS) -> pl.DataFrame:
    """One row per raw path under ``pages/`` (any extension, symlinks and special files included).

    Regular files carry their size and sha256; every other path carries ``problem`` (why it cannot be a
    page). Plain directories are walked, not listed, except one named like a page (``x.html/``).
    """
    corpus = Path(corpus)
    root = corpus / "pages"
    rows = []
    if root.is_symlink():  # pages/ itself: one row, never walked (see the module docstring)
        return pl.DataFrame([discover(corpus, root, limits)], schema=PAGE_SCHEMA)
    for entry in _walk(root) if root.is_dir() else []:
        if not utf8_name(entry.name):  # names are data: quarantined by their escaped bytes, never a crash
            rows.append(_bad_name(corpus, entry))
            continue
        if entry.is_dir(follow_symlinks=False) and Path(entry.name).suffix.lower() not in PAGE_FORMATS:
            continue
        rows.append(discover(corpus, Path(entry.path), limits))
    rows.sort(key=lambda r: Path(r["source_path"]).parts)
    return pl.DataFrame(rows, schema=PAGE_SCHEMA)


def _file_order(name: str) -> int | None:
    numbers = re.findall(r"(\d+)", Path(name).stem)
    return int(numbers[-1]) if numbers else None


def _one_value(page, name: str, label: str, source_path: str, key) -> None:
    """Refuse a page whose field ``name`` appears with values that disagree (after ``key``)."""
    values = page.values.get(name, [])
    if len(values) < 2:
        return
    distinct = list(dict.fromkeys(key(v) for v in values))
    if len(distinct) > 1:
        raise PageError(
            "ambiguous",
            label,
            f"{source_path}: {len(values)} {label} fields disagree "
            f"({', '.join(repr(v) for v in dict.fromkeys(values))}); "
            f"expected one {label} value",
        )


def _problem_key(value: str) -> str:
    return (re.split(r"\s+-\s+|\s", value.strip(), maxsplit=1) or [""])[0]


def _language_key(value: str) -> str:
    try:
        return normalize_language(value)
    except ValueError:
        return value.strip().lower()


def _submitted_at(submit: str | None, source_path: str, rules: PageRules) -> Instant:
    """The page's Submit field as an instant placed in UTC, inside the contest window and not in the future;
    PageError otherwise."""
    if submit is None:
        raise PageError("fields", "Submit", f"{source_path}: no Submit field (expected 'Submit: YYYY-MM-DD HH:MM:SS')")
    instant = parse_instant(submit, rules.zone)
    if instant is None:
        raise PageError(
            "fields",
            "Submit",
            f"{source_path}: Submit {submit!r} is not a date and time (expected YYYY-MM-DD HH:MM[:SS])",
        )
    if instant.utc is None:  # a time that cannot be placed is ambiguous, never shifted by a guess
        raise PageError("ambiguous", "Submit", f"{source_path}: Submit {submit!r} cannot be placed: {instant.problem}")
    submitted_at = instant.utc
    if (
        rules.window_start is not None
        and submitted_at < rules.window_start
        or (rules.window_end is not None and submitted_at > rules.window_end)
    ):
        raise PageError(
            "ambiguous",
            "Submit",
            f"{source_path}: Submit {submit!r} lies outside the contest window "
            f"{rules.window_start} .. {rules.window_end} (contest.yaml)",
        )
    now = rules.now or datetime.now(UTC).replace(tzinfo=None)
    if submitted_at > now + FUTURE_SLACK:
        raise PageError(
            "ambiguous",
            "Submit",
            f"{source_path}: Submit {submit!r} is in the future (read at {now:%Y-%m-%d %H:%M:%S})",
        )
    return instant


def _problem_id(problem_field: str | None, source_path: str, rules: PageRules) -> str:
    """The page's Problem field as a known problem whose package was not quarantined; PageError otherwise."""
    if problem_field is None:
        raise PageError("fields", "Problem", f"{source_path}: no Problem field")
    problem_id = _problem_key(problem_field)
    if problem_id in rules.quarantined_problems:
        raise PageError(
            "fields",
            "Problem",
            f"{source_path}: its problem package was quarantined ({rules.quarantined_problems[problem_id]})",
        )
    if problem_id not in rules.problem_ids:
        raise PageError(
            "fields",
            "Problem",
            f"{source_path}: Problem {problem_field!r} names no known problem "
            f"(expected one of {sorted(rules.problem_ids)})",
        )
    return problem_id


def read_page(corpus: Path, source_path: str, rules: PageRules) -> dict:
    """One page to an attempt row (without its turn); raises PageError to quarantine it."""
    path = Path(corpus) / source_path
    page_format = PAGE_FORMATS.get(path.suffix.lower())
    if page_format is None:
        raise PageError(
            "discover",
            "extension",
            f"{source_path}: extension {path.suffix or '(none)'!r} is not a "
            f"page format (expected .html, .htm, .md or .txt)",
        )
    size = path.stat().st_size
    if size > rules.limits.max_bytes:
        raise PageError(
            "discover", "size", f"{source_path}: {size} bytes, over the page size limit of {rules.limits.max_bytes}"
        )
    text = decode_page(path.read_bytes(), source_path)
    page = parse_page(text, page_format, limits=rules.limits, source=source_path)
    vocabulary = rules.vocabulary
    _one_value(page, "result", "Result", source_path, lambda v: map_verdict(v, vocabulary) or v.strip().lower())
    _one_value(page, "submit", "Submit", source_path, lambda v: _instant_key(v, rules.zone))
    _one_value(page, "problem", "Problem", source_path, _problem_key)
    _one_value(page, "language", "Language", source_path, _language_key)
    parts = Path(source_path).parts
    participant = parts[1] if len(parts) > 2 else page.fields.get("user", "")
    if not participant:
        raise PageError("fields", "User", f"{source_path}: no participant folder and no User field")
    result = page.fields.get("result")
    if result is None:
        raise PageError("fields", "Result", f"{source_path}: no Result field (expected e.g. 'Result: Accepted')")
    verdict = map_verdict(result, rules.vocabulary)
    if verdict is None:
        raise PageError(
            "fields",
            "Result",
            f"{source_path}: Result {result!r} is not in the verdict vocabulary "
            f"(expected one of {sorted(set(rules.vocabulary))})",
        )
    instant = _submitted_at(page.fields.get("submit"), source_path, rules)
    submitted_at = cast(datetime, instant.utc)
    problem_id = _problem_id(page.fields.get("problem"), source_path, rules)
    label = page.fields.get("language")
    if not label:
        raise PageError("fields", "Language", f"{source_path}: no Language field")
    try:
        language = normalize_language(label)
    except ValueError:
        raise PageError(
            "ambiguous",
            "Language",
            f"{source_path}: Language {label!r} is not a language the contest "
            f"judge knows (expected C, C++, Java or Python)",
        ) from None
    if page.empty_blocks and page.code.strip():
        raise PageError(
            "ambiguous",
            "code",
            f"{source_path}: a source block is empty or whitespace-only beside a "
            f"non-empty one; which is the code is ambiguous",
        )
    if not page.code.strip() and page.judge_output and not page.code_source:
        raise PageError(
            "code",
            "code",
            f"{source_path}: the code block is missing; the page's other block(s) are judge output, which never "
            f"becomes the code ({'; '.join(page.judge_output[:3])})",
        )
    if not page.code.strip():
        what = "is empty or whitespace-only" if page.code_source else "is missing"
        raise PageError(
            "code",
            "code",
            f"{source_path}: the code block {what} (expected <pre>, <code>, a fenced "
            f"block or BEGIN/END SOURCE markers holding the source)",
        )
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
        "_clock": instant.how,
    }


def _instant_key(value: str, zone) -> object:
    instant = parse_instant(value, zone)
    return instant.utc if instant is not None and instant.utc is not None else value.strip()


def read_attempts(corpus: Path, pages: pl.DataFrame, rules: PageRules) -> tuple[pl.DataFrame, pl.DataFrame]:
    """Every listed page into ``attempts`` or ``quarantine``; turns from the Submit clock."""
    rows, rejected = [], []
    first_of_hash: dict[str, str] = {}
    for page in pages.iter_rows(named=True):
        source = page["source_path"]
        if page.get("problem"):
            rejected.append(
                {
                    "source_path": source,
                    "stage": "discover",
                    "field": page.get("problem_field"),
                    "reason": page["problem"],
                }
            )
            continue
        original = first_of_hash.setdefault(page["sha256"], source)
        if original != source:
            rejected.append(
                {
                    "source_path": source,
                    "stage": "discover",
                    "field": "sha256",
                    "reason": f"{source}: byte-identical duplicate of {original}",
                }
            )
            continue
        try:
            rows.append(read_page(corpus, source, rules))
        except PageError as exc:
            rejected.append({"source_path": source, "stage": exc.stage, "field": exc.field, "reason": exc.reason})
        except Exception as exc:  # noqa: BLE001 - a parser crash (or a file gone since listing) must not lose the file
            rejected.append(
                {
                    "source_path": source,
                    "stage": "parse",
                    "field": "page",
                    "reason": f"{source}: could not be parsed ({type(exc).__name__}: {exc})",
                }
            )
    rows, unplaced = _place_clocks(rows, rules)
    rejected.extend(unplaced)
    attempts = pl.DataFrame(rows, schema={k: v for k, v in ATTEMPT_SCHEMA.items() if k != "turn"})
    attempts = assign_turns(attempts).select(list(ATTEMPT_SCHEMA))
    return attempts, pl.DataFrame(rejected, schema=QUARANTINE_SCHEMA)


def _place_clocks(rows: list[dict], rules: PageRules) -> tuple[list[dict], list[dict]]:
    """Rows whose Submit can be placed, and quarantine rows for those that cannot: a Submit without zone, in a
    contest that declares none, among pages whose Submit carries an offset. Taking it as UTC would shift it by a
    guess against its neighbours, so it is ambiguous (contest.yaml ``timezone`` places it)."""
    zoned = [r for r in rows if r["_clock"] == "offset"]
    keep, rejected = [], []
    for row in rows:
        how = row.pop("_clock")
        if how == "no zone" and zoned and rules.zone is None:
            source = row["source_path"]
            rejected.append(
                {
                    "source_path": source,
                    "stage": "ambiguous",
                    "field": "Submit",
                    "reason": f"{source}: Submit {row['submitted_at']:%Y-%m-%d %H:%M:%S} has no time zone while "
                    f"{len(zoned)} page(s) of this corpus carry one (e.g. {zoned[0]['source_path']}) and "
                    f"contest.yaml declares no timezone: it cannot be placed",
                }
            )
            continue
        keep.append(row)
    return keep, rejected


def reconcile(pages: pl.DataFrame, attempts: pl.DataFrame, quarantine: pl.DataFrame) -> pl.DataFrame:
    """Raw paths against where they ended: one row per path that is not in exactly one place.

    ``issue`` is ``unaccounted`` (in neither table), ``twice`` (more than one row for it), or ``unknown``
    (an attempt or a pages/ quarantine row whose path is no raw path). Empty when raw = attempts +
    quarantine holds path by path.
    """
    raw = pages.select("source_path")
    in_pages = (pl.col("source_path") == "pages") | pl.col("source_path").str.starts_with("pages/")
    ended = pl.concat([attempts.select("source_path"), quarantine.filter(in_pages).select("source_path")])
    counts = ended.group_by("source_path").len()
    joined = raw.join(counts, on="source_path", how="full", coalesce=True).with_columns(pl.col("len").fill_null(0))
    raw_set = set(raw["source_path"].to_list())
    return (
        joined.with_columns(
            pl.when(~pl.col("source_path").is_in(list(raw_set)))
            .then(pl.lit("unknown"))
            .when(pl.col("len") == 0)
            .then(pl.lit("unaccounted"))
            .when(pl.col("len") > 1)
            .then(pl.lit("twice"))
            .otherwise(None)
            .alias("issue"),
        )
        .filter(pl.col("issue").is_not_null())
        .select("source_path", "issue", pl.col("len").alias("rows"))
        .sort("source_path")
    )


def assign_turns(
    attempts: pl.DataFrame, order: tuple[str, ...] = ("submitted_at", "file_order", "source_path")
) -> pl.DataFrame:
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
        "participant", "problem_id", "attempt_uid", "submitted_at", "file_order", "turn"
    )


def outside_window(attempts: pl.DataFrame, start: datetime, end: datetime) -> pl.DataFrame:
    return attempts.filter((pl.col("submitted_at") < start) | (pl.col("submitted_at") > end)).select(
        "attempt_uid", "submitted_at"
    )
