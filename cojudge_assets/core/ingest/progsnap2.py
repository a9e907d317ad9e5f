"""Importing ProgSnap2 data sets (MainTable.csv + CodeStates) as attempts.

Layout: ``<corpus>/progsnap2/MainTable.csv``, ``<corpus>/progsnap2/CodeStates/``
holding either ``CodeStates.csv`` (CodeStateID, Code) or one folder per
CodeStateID with the code file inside, and optionally ``<corpus>/problems/``
(Kattis packages, for statements and tests).

* Only ``EventType == Submit`` rows are attempts; every Submit row ends in
  ``attempts`` or ``quarantine``.
* The main table is read row by row (:func:`read_rows`): a line the CSV reader
  cannot parse (an unterminated quote) is quarantined with its line number
  (stage ``csv``, ``source_path`` ``progsnap2/MainTable.csv:<line>``) and every
  other row is read. A missing required column (:data:`REQUIRED_COLUMNS`) is a
  refusal: :class:`ProgSnap2Error`, naming the file and the column, exit 2.
* ``SubjectID`` is the participant, ``ProblemID`` the problem, ``EventID`` the
  natural key (``attempt_uid = "progsnap2/<EventID>"``).
* Turn order: ``ServerTimestamp`` where a trajectory has it on every row, else
  ``Order`` (numeric), then EventID. The timestamp is stored in UTC: by its own
  offset, else the row's ``ServerTimezone``, else contest.yaml's ``timezone``,
  else as it reads; one that cannot be placed (a DST gap, an abbreviation) is
  quarantined as ambiguous.
* Label: an optional ``Verdict`` column in the verdict vocabulary wins; else
  ``Correct`` (true -> AC, false -> REJ); else ``Score`` (>= 1 -> AC, else REJ).
  ``REJ`` means "rejected, exact verdict unknown" (ConDefects' faulty programs
  are like that); it is a non-accepted label like WA. A row with none of these is
  quarantined ("no usable label").
* Language: the ``Language`` column, else the last part of ``ToolInstances``.
"""

from __future__ import annotations

import csv
import hashlib
import re
from array import array
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path

import polars as pl

from cojudge_assets.core.execution.contest_judge.languages import normalize_language
from cojudge_assets.core.ingest.attempts import ATTEMPT_SCHEMA, QUARANTINE_SCHEMA, assign_turns
from cojudge_assets.core.ingest.pages import DEFAULT_RESULT_VOCABULARY, map_verdict, parse_instant

REQUIRED_COLUMNS = ("EventType", "EventID", "SubjectID", "ProblemID", "CodeStateID")
MAIN_TABLE = "progsnap2/MainTable.csv"
CODE_STATE_SCHEMA = {"CodeStateID": pl.String, "Code": pl.String}
CODE = "__code"  # the code joined to the main table's rows, under a name no ProgSnap2 column has
BATCH_ROWS = 50_000  # rows held as Python values at once while a table is read


class ProgSnap2Error(ValueError):
    """A ProgSnap2 table that cannot be read at all (missing, not UTF-8, a required column missing): a refusal."""


def _read_csv(path: Path) -> pl.DataFrame:
    if not path.is_file():
        raise ProgSnap2Error(f"{path}: missing (expected a ProgSnap2 table)")
    return pl.read_csv(path, infer_schema=False)


@dataclass
class BrokenRow:
    """A line of a table that the CSV reader cannot parse: its number (1 is the header) and why."""

    line: int
    reason: str


class Lines:
    """A text's physical lines as ``str.splitlines(keepends=True)`` cuts them, held as the one text and each line's
    start: a list of a million line strings held ~0.2 GB (a table of 10^6 attempts); this holds the text and 8
    bytes a line. The text is split in blocks that end just after a ``\n`` (no ``\r\n`` is cut in two, and
    every other line break is one character), so the lines are those of the whole text."""

    BLOCK = 1 << 22  # characters split at once

    def __init__(self, text: str) -> None:
        self.text = text
        starts = array("q")
        start = 0
        while start < len(text):
            cut = text.find("\n", start + self.BLOCK)
            end = len(text) if cut < 0 else cut + 1
            for line in text[start:end].splitlines(keepends=True):
                starts.append(start)
                start += len(line)
            start = end
        starts.append(len(text))
        self.starts = starts

    def __len__(self) -> int:
        return len(self.starts) - 1

    def __getitem__(self, i: int) -> str:
        if not 0 <= i < len(self):
            raise IndexError(i)
        return self.text[self.starts[i] : self.starts[i + 1]]


def _lines_and_header(path: Path) -> tuple[Lines, list[str]]:
    """The table's physical lines (line ends kept) and its header; ProgSnap2Error naming the file otherwise."""
    if not path.is_file():
        raise ProgSnap2Error(f"{path}: missing (expected a ProgSnap2 table)")
    try:
        lines = Lines(path.read_text(encoding="utf-8-sig"))
    except UnicodeDecodeError as exc:
        raise ProgSnap2Error(f"{path}: not valid UTF-8 (byte {exc.start}): expected a UTF-8 CSV table") from None
    if not len(lines):
        raise ProgSnap2Error(f"{path}: empty (expected a header line)")
    try:
        header = next(csv.reader([lines[0]], strict=True))
    except csv.Error as exc:
        raise ProgSnap2Error(f"{path}: line 1 (the header) cannot be parsed as CSV ({exc})") from None
    return lines, header


def _line_alone(line: str, number: int, width: int, broken: list[BrokenRow]) -> list[str] | None:
    """One physical line read by itself: its record, or None (blank, or appended to ``broken`` with why)."""
    if not line.strip():
        return None
    try:
        record = next(csv.reader([line], strict=True))
    except (csv.Error, StopIteration) as exc:
        broken.append(BrokenRow(number, f"cannot be parsed as CSV ({exc or 'no record'})"))
        return None
    if len(record) != width:
        broken.append(BrokenRow(number, f"{len(record)} fields where the header has {width}"))
        return None
    return record


def read_rows(path: Path) -> tuple[pl.DataFrame, list[BrokenRow]]:
    """A CSV table row by row: every row that parses (all columns as strings), and each line that does not.

    Records are read with Python's csv reader in strict mode, one at a time. A record that fails (an unterminated
    quote, a stray quote, a wrong number of fields) marks a bad region, from its first line to where the reader
    stopped (an unterminated quote runs on to a later quote or to the end of the file); each line of that region
    is then read alone, so the good lines the broken quote swallowed are kept and only the lines that fail on
    their own are returned as broken. Blank lines are skipped.
    """
    lines, header = _lines_and_header(path)
    width = len(header)
    schema = dict.fromkeys(header, pl.String)
    rows: list[list[str]] = []
    frames: list[pl.DataFrame] = []  # the rows parsed so far, a frame per BATCH_ROWS: a list per row costs ~0.6 KB
    broken: list[BrokenRow] = []

    def keep(record: list[str]) -> None:
        rows.append(record)
        if len(rows) >= BATCH_ROWS:
            frames.append(pl.DataFrame(rows, schema=schema, orient="row"))
            rows.clear()

    def alone(i: int) -> None:  # the second pass: one physical line by itself
        record = _line_alone(lines[i], i + 1, width, broken)
        if record is not None:
            keep(record)

    i = 1  # one reader runs until a record fails; the bad region is read line by line, then a new reader starts
    while i < len(lines):
        consumed = 0

        def feed(start: int = i):
            nonlocal consumed
            for k in range(start, len(lines)):
                consumed += 1
                yield lines[k]

        record_start, region = i, None
        try:
            for record in csv.reader(feed(), strict=True):
                if record and len(record) != width:
                    region = (record_start, i + consumed)
                    break
                if record:
                    keep(record)
                record_start = i + consumed
        except csv.Error:
            region = (record_start, i + consumed)
        if region is None:
            break
        for j in range(region[0], max(region[1], region[0] + 1)):
            alone(j)
        i = max(region[1], region[0] + 1)
    frames.append(pl.DataFrame(rows, schema=schema, orient="row"))
    frame = pl.concat(frames, rechunk=True)
    return frame.with_columns(pl.all().replace("", None)), broken  # an empty field is null, as polars reads it


def missing_columns(path: Path) -> list[str]:
    """The required ProgSnap2 columns the main table's header lacks (reads the header line only)."""
    with path.open(encoding="utf-8-sig", errors="replace", newline="") as handle:
        header = next(csv.reader(handle), [])
    return [column for column in REQUIRED_COLUMNS if column not in header]


def main_table_problem(corpus: Path) -> str | None:
    """Why a ProgSnap2 corpus's main table cannot be read at all (a missing required column), naming the file and
    the column; None when its header has every required column (or there is no table: that is reported apart)."""
    path = Path(corpus) / MAIN_TABLE
    if not path.is_file():
        return None
    missing = missing_columns(path)
    if missing:
        return f"{path}: no column {missing[0]!r} (required by ProgSnap2: {', '.join(REQUIRED_COLUMNS)})"
    return None


def read_code_states(folder: Path) -> pl.DataFrame:
    """One row per code state (CodeStateID, Code; a CodeStateID given twice: its last code), from CodeStates.csv
    or from one folder per code state. A frame, not a dict: a million codes as Python strings held ~0.2 GB more."""
    table = folder / "CodeStates.csv"
    if table.is_file():
        states = _read_csv(table)
        for column in ("CodeStateID", "Code"):
            if column not in states.columns:
                raise ProgSnap2Error(f"{table}: no column {column!r}")
        return states.select("CodeStateID", "Code").unique("CodeStateID", keep="last", maintain_order=True)
    if not folder.is_dir():
        raise ProgSnap2Error(f"{folder}: missing (expected CodeStates.csv or one folder per CodeStateID)")
    codes = {}
    for state in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = sorted(p for p in state.rglob("*") if p.is_file())
        if files:
            codes[state.name] = "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)
    return pl.DataFrame({"CodeStateID": list(codes), "Code": list(codes.values())}, schema=CODE_STATE_SCHEMA)


def _label(row: dict, vocabulary: dict[str, str]) -> tuple[str | None, str]:
    verdict_text = (row.get("Verdict") or "").strip()
    if verdict_text:
        verdict = map_verdict(verdict_text, vocabulary)
        if verdict:
            return verdict, verdict_text
    correct = (row.get("Correct") or "").strip().lower()
    if correct in ("true", "1", "yes"):
        return "AC", "Correct=true"
    if correct in ("false", "0", "no"):
        return "REJ", "Correct=false"
    score = (row.get("Score") or "").strip()
    if score:
        try:
            return ("AC" if float(score) >= 1.0 else "REJ"), f"Score={score}"
        except ValueError:
            pass
    return None, verdict_text


def _server_time(row: dict, zone) -> tuple[datetime | None, str | None]:
    """ServerTimestamp as naive UTC (pages.parse_instant): its own offset, else the row's ServerTimezone (an offset
    such as ``+0900`` or ``-5``, or an IANA name), else contest.yaml's timezone, else as it reads; (None, why) for a
    time that cannot be placed. (None, None) when the row has no timestamp."""
    stamp = (row.get("ServerTimestamp") or "").strip()
    if not stamp:
        return None, None
    zone_text = (row.get("ServerTimezone") or "").strip()
    if zone_text:
        if re.fullmatch(r"[+\-]?\d{1,4}", zone_text):  # ProgSnap2 writes offsets as [+-]HHMM, sometimes as hours
            sign = "-" if zone_text.startswith("-") else "+"
            digits = zone_text.lstrip("+-")
            zone_text = sign + (digits.zfill(2) if len(digits) <= 2 else digits.zfill(4))
        stamp = f"{stamp} {zone_text}"
    instant = parse_instant(stamp, zone)
    if instant is None:
        return None, f"ServerTimestamp {stamp!r} is not a date and time"
    return instant.utc, instant.problem


def read_progsnap2(
    corpus: Path, *, vocabulary: dict[str, str] | None = None, zone=None
) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """(attempts, quarantine, number of raw rows) of a ProgSnap2 corpus; ``zone``: contest.yaml's timezone, where
    a ServerTimestamp without offset or ServerTimezone is read."""
    vocabulary = vocabulary or DEFAULT_RESULT_VOCABULARY
    root = Path(corpus) / "progsnap2"
    main_path = root / "MainTable.csv"
    main, broken = read_rows(main_path)
    for column in REQUIRED_COLUMNS:
        if column not in main.columns:
            raise ProgSnap2Error(f"{main_path}: no column {column!r} (required by ProgSnap2)")
    codes = read_code_states(root / "CodeStates").rename({"Code": CODE})
    submits = main.filter(pl.col("EventType") == "Submit")
    raw = submits.height + len(broken)  # a broken line is a raw row too: it is in the quarantine
    submits = submits.join(codes, on="CodeStateID", how="left", maintain_order="left")
    del main, codes
    schema = {k: v for k, v in ATTEMPT_SCHEMA.items() if k != "turn"}
    # the attempts gathered column by column and BATCH_ROWS at a time into frames: Python values for every
    # attempt at once held ~1.6 GB at 10^6 (a dict per row ~1 KB more again)
    columns: dict[str, list] = {name: [] for name in schema}
    frames: list[pl.DataFrame] = []
    rejected: list[dict] = []
    for bad in broken:  # a row the CSV reader cannot parse: its line, and the rest of the file is read
        source = f"{MAIN_TABLE}:{bad.line}"
        rejected.append(
            {
                "source_path": source,
                "stage": "csv",
                "field": "row",
                "reason": f"{source}: line {bad.line} {bad.reason}; the other rows were read",
            }
        )
    for row in submits.iter_rows(named=True):
        if len(columns["attempt_uid"]) >= BATCH_ROWS:
            frames.append(pl.DataFrame(columns, schema=schema))
            columns = {name: [] for name in schema}
        source = f"progsnap2/MainTable.csv#{row['EventID']}"
        verdict, result = _label(row, vocabulary)
        if verdict is None:
            rejected.append(
                {
                    "source_path": source,
                    "stage": "label",
                    "field": "Correct",
                    "reason": f"{source}: no usable label (Verdict {row.get('Verdict')!r}, Correct "
                    f"{row.get('Correct')!r}, Score {row.get('Score')!r})",
                }
            )
            continue
        code = row[CODE]
        if code is None or not code.strip():
            rejected.append(
                {
                    "source_path": source,
                    "stage": "code",
                    "field": "CodeStateID",
                    "reason": f"{source}: CodeStateID {row['CodeStateID']!r} has no code in CodeStates",
                }
            )
            continue
        submitted_at, unplaced = _server_time(row, zone)
        if unplaced:  # a time that cannot be placed is ambiguous, never shifted by a guess
            rejected.append(
                {
                    "source_path": source,
                    "stage": "ambiguous",
                    "field": "ServerTimestamp",
                    "reason": f"{source}: cannot be placed: {unplaced}",
                }
            )
            continue
        label = (row.get("Language") or (row.get("ToolInstances") or "").split(";")[-1]).strip()
        try:
            language = normalize_language(label)
        except ValueError:
            language = label.lower()
        order = (row.get("Order") or "").strip()
        attempt = {
            "attempt_uid": f"progsnap2/{row['EventID']}",
            "source_path": source,
            "participant": row["SubjectID"],
            "problem_id": row["ProblemID"],
            "submitted_at": submitted_at,
            "page_saved_at": None,
            "file_order": int(order) if order.lstrip("-").isdigit() else None,
            "submission_id": row["EventID"],
            "language": language,
            "language_label": label,
            "code": code,
            "code_sha256": hashlib.sha256(code.encode()).hexdigest(),
            "result": result,
            "verdict": verdict,
            "accepted": verdict == "AC",
            "page_format": "progsnap2",
        }
        for name, value in attempt.items():
            columns[name].append(value)
    frames.append(pl.DataFrame(columns, schema=schema))
    del submits, columns
    frame = pl.concat(frames, rechunk=True)
    del frames
    # a trajectory is ordered by its clock only when every row has one; else by Order
    complete = frame.group_by("participant", "problem_id").agg(
        pl.col("submitted_at").null_count().eq(0).alias("clocked")
    )
    frame = frame.join(complete, on=["participant", "problem_id"]).with_columns(
        pl.when(pl.col("clocked")).then(pl.col("submitted_at")).otherwise(None).alias("_clock")
    )
    ordered = assign_turns(frame, order=("_clock", "file_order", "submission_id"))
    return ordered.select(list(ATTEMPT_SCHEMA)), pl.DataFrame(rejected, schema=QUARANTINE_SCHEMA), raw


def raw_row_count(corpus: Path) -> int:
    """The raw rows of a ProgSnap2 corpus, counted apart from reading them into attempts: the Submit rows of its
    main table and the lines the CSV reader cannot parse (each of which ends in the quarantine)."""
    main, broken = read_rows(Path(corpus) / MAIN_TABLE)
    if "EventType" not in main.columns:
        return len(broken)
    return main.filter(pl.col("EventType") == "Submit").height + len(broken)
