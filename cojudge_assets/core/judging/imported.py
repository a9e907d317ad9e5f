"""Imported judges: judgments made elsewhere, read from a file and validated before they enter cojudge's tables.

A judge need not be called by cojudge. A published study's release or a team's
spreadsheet holds judgments of the same attempts; cojudge reads them as a judge
of their own, with provenance (the file, its SHA-256, the line of every row),
and never sends them to a provider. This module is the pure reader and
validator; the judges file declares the source (:class:`ImportedSource`) and the
judging assets write the answers beside the judged rows.

File format: cojudge judgments, version 1
=========================================

One row per item x judge [x condition]. The format is chosen by the file's
extension: ``.csv`` (UTF-8, a header row, a UTF-8 BOM is allowed), ``.jsonl`` or
``.ndjson`` (UTF-8, one JSON object per line) or ``.parquet``. Columns:

============  =========  =====================================================================
column        required   meaning
============  =========  =====================================================================
item          yes        the attempt's key, cojudge's ``attempt_uid``
judge         no         which judge the row belongs to; a file without it holds one judge
condition     no         ``blind`` (default when absent or empty), ``prefix12k`` or ``nonblind``
score         one of     the judge's score on its declared native scale (a number)
raw_answer    the two    the judge's answer as text, read only when ``score`` is empty
s_algo        no         integer rubric score 1..5
s_robust      no         integer rubric score 1..5
rationale     no         text
model         no         the judge's model identity as its provider reported it
============  =========  =====================================================================

Other columns are ignored. The native scale is not in the file: the declaration
gives it (``scale: {min, max, integer}``), and a score maps to cojudge's
acceptance probability as ``p_accept = (score - min) / (max - min)``.

What happens to each row:

* **ok**: the score (or a raw answer that is exactly one number once stripped,
  such as ``3``, ``3.0``, ``0.75``) lies on the declared scale.
* **invalid** (kept, ``status = "invalid"``, ``p_accept`` null, the reason in
  ``error``): a raw answer that is not exactly one number (``Score: 3``,
  ``three``, an empty text: never guessed), a score outside [min, max], NaN or
  infinite, or not an integer on an ``integer`` scale, or a row with neither a
  score nor a raw answer. An invalid judgment is an observation about the judge.
* **rejected** (does not enter; one row in the rejects table with the file, the
  line, the field and the reason): an empty item key, an item that is not an
  attempt of the corpus, an unknown condition, ``s_algo``/``s_robust`` that is
  not an integer in 1..5 (the row would otherwise have to enter with a field
  silently blanked), a second row for the same item x judge x condition
  ("duplicate of line N": the first row that enters is kept), a JSONL line that
  is not a JSON object, and a row whose ``judge`` cell is empty in a file that
  has a ``judge`` column.
* **the whole file fails** (:class:`ImportFormatError`, naming the file, and the
  column and line where known): a missing or empty file, an unknown extension,
  a file that does not parse (not UTF-8, a CSV row with more fields than the
  header, a Parquet file that is not Parquet), a duplicated column name, no
  ``item`` column, neither ``score`` nor ``raw_answer``, a cell that cannot be
  read as its column's type (``score: "abc"``, a JSON list), a declared judge
  with no row in a file that names other judges.

Nothing is silently dropped: every data row of the file ends in the judgments
or the read rejects (:func:`read_judgments`), and every judgment ends in the
answers or the answer rejects (:func:`answers`). Blank lines hold no row and
are skipped; rows of other judges are left to those judges.

The functions: :func:`read_judgments` returns ``(judgments, rejects)`` (a
malformed JSONL line has no judgment to carry it, so reading has rejects of its
own); :func:`answers` maps a judgments frame (from a file or from an adapter
such as the ICE-Score one, same :data:`JUDGMENT_COLUMNS`) to ``(answers,
rejects)``; :func:`load_imported` does both for one declared judge and adds the
file's SHA-256. In JSONL, a number where text is expected (``"item": 17``,
``"raw_answer": 3``) is read as its text.

Line numbers (``source_line``) are 1-based lines of the file: in a CSV the
header is line 1 and the first data row line 2, and a row follows any quoted
field with line breaks before it (the line a row *starts* on); in JSONL the
line; in Parquet the row number, from 1.

Example (``data/imported/team-x.csv``)::

    item,judge,condition,raw_answer,rationale
    contest/alice/p1/1,team-x,blind,3,handles the empty input
    contest/alice/p1/2,team-x,blind,4,correct and fast
    contest/bob/p2/1,team-x,nonblind,Score: 1,
    contest/bob/p2/2,team-x,blind,0,wrong recurrence

declared in the judges file as::

    judges:
      - name: team-x
        imported:
          path: imported/team-x.csv   # relative to the judges file's folder
          version: 1
          scale: {min: 0, max: 4, integer: true}

gives ``p_accept`` 0.75, 1.0 and 0.0 for the three numeric answers, and keeps
``Score: 1`` as an invalid row ("field 'raw_answer': 'Score: 1' is not a
number").
"""

from __future__ import annotations

import csv
import hashlib
import json
import math
from dataclasses import dataclass
from pathlib import Path
from typing import Literal

import polars as pl
from pydantic import BaseModel, ConfigDict, field_validator, model_validator

from cojudge_assets.core.constants import BLIND, CONDITIONS

FORMAT_VERSION = 1
EXTENSIONS = {".csv": "csv", ".jsonl": "jsonl", ".ndjson": "jsonl", ".parquet": "parquet"}

JUDGMENT_COLUMNS = pl.Schema(
    {
        "item": pl.String,
        "judge": pl.String,
        "condition": pl.String,
        "raw_answer": pl.String,
        "score": pl.Float64,
        "s_algo": pl.Int32,
        "s_robust": pl.Int32,
        "rationale": pl.String,
        "model": pl.String,
        "source_file": pl.String,
        "source_line": pl.Int64,
    }
)
REJECT_COLUMNS = pl.Schema(
    {
        "source_file": pl.String,
        "source_line": pl.Int64,
        "judge": pl.String,
        "field": pl.String,
        "reason": pl.String,
    }
)
ANSWER_COLUMNS: dict[str, type[pl.DataType]] = {
    "attempt_uid": pl.String,
    "condition": pl.String,
    "status": pl.String,
    "p_accept": pl.Float64,
    "s_algo": pl.Int32,
    "s_robust": pl.Int32,
    "rationale": pl.String,
    "raw_response": pl.String,
    "served_model": pl.String,
    "error": pl.String,
    "source_line": pl.Int64,
}

# The columns a file may carry, and the type each is read as (s_algo, s_robust: numbers, then integers).
FILE_COLUMNS = ("item", "judge", "condition", "score", "raw_answer", "s_algo", "s_robust", "rationale", "model")
_NUMERIC = ("score", "s_algo", "s_robust")
_RUBRIC = ("s_algo", "s_robust")
# A raw answer is read only when it is exactly one decimal number (no words, units, fractions or commas).
_ONE_NUMBER = r"^[+-]?(?:\d+(?:\.\d*)?|\.\d+)(?:[eE][+-]?\d+)?$"
_SHOWN = 60  # characters of a bad value quoted in an error


class ImportFormatError(ValueError):
    """A problem with the whole file (not one row): the message names the file, and the column or line if known."""


class Scale(BaseModel):
    """The judge's declared native scale; ``p_accept = (score - min) / (max - min)``.

    >>> Scale(min=0, max=4, integer=True).to_p(3)
    0.75
    >>> Scale(min=0, max=4, integer=True).problem(2.5)
    '2.5 is not an integer on the declared integer scale 0..4'
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    min: float
    max: float
    integer: bool = False

    @model_validator(mode="after")
    def _ordered(self) -> Scale:
        if not (math.isfinite(self.min) and math.isfinite(self.max)):
            raise ValueError(f"min and max must be finite numbers (got {self.min}..{self.max})")
        if not self.max > self.min:
            raise ValueError(f"max must be greater than min (got min {_num(self.min)}, max {_num(self.max)})")
        return self

    def __str__(self) -> str:
        return f"{'integer ' if self.integer else ''}scale {_num(self.min)}..{_num(self.max)}"

    def problem(self, score: float) -> str:
        """Why ``score`` is not an answer on this scale ("" when it is)."""
        if not math.isfinite(score):
            return f"{_num(score)} is not a finite number on the declared {self}"
        if score < self.min or score > self.max:
            return f"{_num(score)} is outside the declared {self}"
        if self.integer and score != math.floor(score):
            return f"{_num(score)} is not an integer on the declared {self}"
        return ""

    def to_p(self, score: float) -> float:
        """The acceptance probability of a score on this scale; ValueError (saying why) if it is not on it."""
        problem = self.problem(float(score))
        if problem:
            raise ValueError(problem)
        return (float(score) - self.min) / (self.max - self.min)


class ImportedSource(BaseModel):
    """The declaration of an imported judge (the ``imported:`` key of a judges-file entry)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    path: str
    version: int = FORMAT_VERSION
    judge: str | None = None  # the file's judge column value; None: the entry's name (or every row)
    scale: Scale
    # "file": the path is a judgments file in this format; "icescore": the path is an ICE-Score release whose
    # judge files a corpus layout reads (core/ingest/icescore.py), never written by hand in a judges file
    layout: Literal["file", "icescore"] = "file"

    @field_validator("version")
    @classmethod
    def _known_version(cls, value: int) -> int:
        if value != FORMAT_VERSION:
            raise ValueError(
                f"version {value} is not known: this cojudge reads cojudge judgments version {FORMAT_VERSION} only"
            )
        return value

    def resolve(self, base_dir: str | Path | None = None) -> Path:
        """The file's path; a relative path is taken from ``base_dir`` (the judges file's folder)."""
        path = Path(self.path).expanduser()
        return path if path.is_absolute() or base_dir is None else Path(base_dir) / path


@dataclass
class ImportedJudgments:
    """One imported judge's rows: what enters (answers), what cannot (rejects), and the file's provenance."""

    path: Path
    sha256: str
    answers: pl.DataFrame  # ANSWER_COLUMNS
    rejects: pl.DataFrame  # REJECT_COLUMNS: read rejects then answer rejects
    rows: int  # len(answers) + len(rejects): this judge's rows, and rows that belong to no judge (rejected)


def _num(x: float) -> str:
    """A number as a person writes it: 7 not 7.0, 2.5, nan, inf."""
    if isinstance(x, float) and math.isfinite(x) and x == math.floor(x) and abs(x) < 1e16:
        return str(int(x))
    return repr(x) if isinstance(x, float) and math.isfinite(x) else str(x)


def _shown(value: object) -> str:
    text = str(value)
    return repr(text if len(text) <= _SHOWN else text[:_SHOWN] + "...")


def file_sha256(path: str | Path) -> str:
    """The hex SHA-256 of a file's bytes, read in chunks (the provenance of every imported row)."""
    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def _empty_rejects() -> pl.DataFrame:
    return pl.DataFrame(schema=REJECT_COLUMNS)


def _rejects(rows: list[dict]) -> pl.DataFrame:
    return pl.DataFrame(rows, schema=REJECT_COLUMNS) if rows else _empty_rejects()


# ---------------------------------------------------------------------------------------------------------------
# Reading: each format becomes a frame of the file's columns plus source_line, then one typed normalization.


def _refuse_utf16(path: Path) -> None:
    with open(path, "rb") as handle:
        if handle.read(2) in (b"\xff\xfe", b"\xfe\xff"):
            raise ImportFormatError(f"{path}: it is UTF-16 (it starts with a UTF-16 byte-order mark); save it as UTF-8")


def _utf8_problem(path: Path) -> str:
    """Where the file stops being UTF-8 ("" if it is); read whole, so only run once a reader has failed."""
    data = path.read_bytes()
    try:
        data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        return f"line {line}: not UTF-8 (byte {data[exc.start]:#04x})"
    return ""


def _csv_problem(path: Path, fields: int) -> str:
    """Where the standard csv module finds a row the polars reader refused (only run when it refused)."""
    with open(path, encoding="utf-8-sig", newline="") as handle:
        reader = csv.reader(handle, strict=True)
        try:
            next(reader, None)
            for row in reader:
                if len(row) > fields:
                    return f"line {reader.line_num}: {len(row)} fields, the header has {fields}"
        except csv.Error as exc:
            return f"line {reader.line_num}: {exc}"
    return ""


def _read_csv(path: Path) -> pl.DataFrame:
    _refuse_utf16(path)
    try:
        with open(path, encoding="utf-8-sig", newline="") as handle:
            header = next(csv.reader(handle), None)
    except UnicodeDecodeError:
        raise ImportFormatError(f"{path}: {_utf8_problem(path)}") from None
    if not header:
        raise ImportFormatError(f"{path}: no header row (a CSV of judgments starts with its column names)")
    # Unnamed columns (a spreadsheet's trailing commas) are ignored like any other column cojudge does not read.
    names = [name.strip() or f"(unnamed {i + 1})" for i, name in enumerate(header)]
    doubled = sorted({name for name in names if names.count(name) > 1})
    if doubled:
        raise ImportFormatError(f"{path}: column {doubled[0]!r} appears more than once in the header")
    try:
        frame = pl.read_csv(path, infer_schema=False, new_columns=names, encoding="utf8")
    except Exception as exc:  # noqa: BLE001 - polars raises several types; the csv module locates the line
        where = _utf8_problem(path) or _csv_problem(path, len(names)) or str(exc).splitlines()[0]
        raise ImportFormatError(f"{path}: not a readable CSV: {where}") from None
    # A row starts on the line after the previous one ends: the header's lines, then one line per record plus
    # the line breaks inside its quoted fields.
    breaks = (
        pl.sum_horizontal(pl.col(c).str.count_matches("\n").fill_null(0) for c in frame.columns)
        if frame.width
        else pl.lit(0)
    )
    first = 1 + sum(name.count("\n") for name in header) + 1
    return frame.with_columns(
        source_line=(pl.int_range(pl.len(), dtype=pl.Int64) + first + breaks.cum_sum().shift(1, fill_value=0))
    )


def _read_jsonl(path: Path) -> tuple[pl.DataFrame, list[dict]]:
    _refuse_utf16(path)
    try:
        return _parse_jsonl(path)
    except UnicodeDecodeError:
        raise ImportFormatError(f"{path}: {_utf8_problem(path)}") from None


def _parse_jsonl(path: Path) -> tuple[pl.DataFrame, list[dict]]:
    records: list[dict] = []
    lines: list[int] = []
    seen: set[str] = set()
    bad: list[dict] = []
    with open(path, encoding="utf-8-sig") as handle:
        for number, line in enumerate(handle, start=1):
            if not line.strip():
                continue
            try:
                record = json.loads(line)
            except json.JSONDecodeError as exc:
                bad.append(
                    {
                        "source_line": number,
                        "field": "(line)",
                        "reason": f"not a JSON object: {exc.msg} at column {exc.colno}",
                    }
                )
                continue
            if not isinstance(record, dict):
                bad.append(
                    {
                        "source_line": number,
                        "field": "(line)",
                        "reason": f"expected a JSON object, got {type(record).__name__}",
                    }
                )
                continue
            seen.update(record)
            records.append(record)
            lines.append(number)
    frame = pl.DataFrame(
        {
            name: _jsonl_column(path, name, [r.get(name) for r in records], lines)
            for name in FILE_COLUMNS
            if name in seen
        }
    )
    return frame.with_columns(source_line=pl.Series(lines, dtype=pl.Int64)), bad


def _jsonl_column(path: Path, name: str, values: list, lines: list[int]) -> pl.Series:
    """One column of JSON values as text (numbers by their repr, which parses back exactly); a JSON list,
    object or boolean is a file error naming the column and the line."""
    if all(value is None or type(value) is str for value in values):  # the usual case: one pass, no copies
        return pl.Series(name, values, dtype=pl.String)
    texts = []
    for value, number in zip(values, lines):
        if isinstance(value, (bool, list, dict)):
            raise ImportFormatError(
                f"{path}: column {name!r}: line {number}: {json.dumps(value)[:_SHOWN]} is a "
                f"JSON {type(value).__name__}, expected a "
                f"{'number' if name in _NUMERIC else 'string'}"
            )
        texts.append(value if value is None or isinstance(value, str) else repr(value))
    return pl.Series(name, texts, dtype=pl.String)


def _parquet_names(path: Path) -> dict[str, str]:
    """The file's columns cojudge reads: the name stripped of spaces -> the name in the file."""
    try:
        schema = pl.read_parquet_schema(path)
    except Exception as exc:  # noqa: BLE001 - polars raises several types for a damaged file; all are its fault
        raise ImportFormatError(f"{path}: not a readable Parquet file: {str(exc).splitlines()[0]}") from None
    names = [name for name in schema if name.strip() in FILE_COLUMNS]
    twice = sorted({name.strip() for name in names if [n.strip() for n in names].count(name.strip()) > 1})
    if twice:
        raise ImportFormatError(f"{path}: column {twice[0]!r} appears more than once")
    return {name.strip(): name for name in names}


def _stripped(name: str) -> pl.Expr:
    return pl.col(name).cast(pl.String).str.strip_chars()


def _parquet_rows(names: dict[str, str], judge: str | None, condition: str | None) -> pl.Expr | None:
    """The rows of a Parquet file :func:`read_judgments` needs for ``judge`` under ``condition`` (None: all), as a
    filter pushed into the scan: the judge's rows of that condition; under blind, where the rows no
    judge or condition owns are reported, also the rows with an empty judge cell and the judge's rows that carry a
    rubric score (the rubric check's rejects are reported there)."""
    keep: list[pl.Expr] = []
    if condition is not None:
        cell = _stripped(names["condition"]) if "condition" in names else pl.lit(None, pl.String)
        mine = (cell == condition) if condition != BLIND else (cell.is_null() | cell.is_in(["", BLIND]))
        if condition == BLIND:
            mine = pl.any_horizontal(mine, *(pl.col(names[r]).is_not_null() for r in _RUBRIC if r in names))
        keep.append(mine)
    if judge is not None and "judge" in names:
        cell = _stripped(names["judge"])
        owned = cell == judge
        if condition in (None, BLIND):
            owned = owned | cell.is_null() | (cell == "")
        keep.append(owned)
    return pl.all_horizontal(keep) if keep else None


def _read_parquet(path: Path, judge: str | None = None, condition: str | None = None) -> pl.DataFrame:
    """The file's columns cojudge reads, with ``source_line`` (the row number from 1); with ``judge`` or
    ``condition`` only the rows :func:`_parquet_rows` keeps, filtered in the scan (the other rows' strings are
    never made: a partition of a 6M-row file reads its 1M)."""
    names = _parquet_names(path)
    try:
        scan = pl.scan_parquet(path, row_index_name="source_line", row_index_offset=1)
        rows = _parquet_rows(names, judge, condition)
        scan = scan.filter(rows) if rows is not None else scan
        frame = scan.select(*names.values(), pl.col("source_line").cast(pl.Int64)).collect()
    except Exception as exc:  # noqa: BLE001 - polars raises several types for a damaged file; all are its fault
        raise ImportFormatError(f"{path}: not a readable Parquet file: {str(exc).splitlines()[0]}") from None
    return frame.rename({name: stripped for stripped, name in names.items()})


def _judges_in_parquet(path: Path) -> list[str]:
    """The judges a Parquet file names (its judge column only, read in the scan), sorted; up to 11."""
    names = _parquet_names(path)
    if "judge" not in names:
        return []
    cell = _stripped(names["judge"])
    found = pl.scan_parquet(path).select(cell.alias("judge")).filter(pl.col("judge") != "").unique().collect()
    return sorted(found["judge"].to_list())[:11]


def judgment_conditions(path: str | Path, *, judge: str | None = None) -> frozenset[str]:
    """The conditions ``judge``'s rows of the file are under (every row's, with no judge column or no ``judge``),
    an empty cell read as blind: a superset of the conditions of :func:`read_judgments`' judgments (a row the
    rubric check rejects still counts). A Parquet file is read by its judge and condition columns, in the scan;
    another format whole. Raises :class:`ImportFormatError` as :func:`read_judgments` does for a file it cannot
    read, and for a declared judge with no row in a file that names others."""
    path = Path(path)
    if EXTENSIONS.get(path.suffix.lower()) != "parquet" or not path.is_file() or path.stat().st_size == 0:
        frame, _ = read_judgments(path, judge=judge)
        return frozenset(frame["condition"].drop_nulls().unique().to_list())
    names = _parquet_names(path)
    _required_columns(path, "parquet", list(names))
    if "condition" not in names:
        return frozenset({BLIND})
    cell = _stripped(names["condition"])
    scan = pl.scan_parquet(path)
    if judge is not None and "judge" in names:
        scan = scan.filter(_stripped(names["judge"]) == judge)
    found = scan.select(pl.when(cell.is_null() | (cell == "")).then(pl.lit(BLIND)).otherwise(cell).alias("c"))
    conditions = frozenset(found.unique().collect()["c"].to_list())
    if not conditions and judge is not None and _judges_in_parquet(path):
        _no_row_of(path, judge, _judges_in_parquet(path))
    return conditions


def _no_row_of(path: Path, judge: str, names: list[str]) -> None:
    raise ImportFormatError(
        f"{path}: column 'judge': no row of judge {judge!r}; the file holds "
        f"{', '.join(map(repr, names[:10]))}{' ...' if len(names) > 10 else ''}"
    )


def _typed(path: Path, frame: pl.DataFrame, name: str) -> pl.Series:
    """Column ``name`` as String (text columns) or Float64 (numbers), or ImportFormatError naming a bad cell."""
    series, numeric = frame[name], name in _NUMERIC
    dtype = series.dtype
    if dtype == pl.Null:
        return pl.Series(name, [None] * len(series), dtype=pl.Float64 if numeric else pl.String)
    if numeric and dtype.is_numeric():
        return series.cast(pl.Float64)
    if not numeric and (dtype == pl.String or dtype.is_numeric()):
        return series.cast(pl.String)
    if dtype != pl.String:
        raise ImportFormatError(
            f"{path}: column {name!r} is of type {dtype}, expected {'a number' if numeric else 'text'}"
        )
    text = series.str.strip_chars()
    text = pl.select(pl.when(text.str.len_chars() > 0).then(text)).to_series()
    values = text.cast(pl.Float64, strict=False)
    failed = values.is_null() & text.is_not_null()
    if failed.any():
        at = failed.arg_true()[0]
        raise ImportFormatError(
            f"{path}: column {name!r}: line {frame['source_line'][at]}: "
            f"{_shown(series[at])} is not a number ({failed.sum()} such cells)"
        )
    return values.rename(name)


def _required_columns(path: Path, kind: str, found: list[str]) -> None:
    """ImportFormatError when the file's columns lack ``item``, or both ``score`` and ``raw_answer``."""
    if "item" not in found:
        hint = (
            "; is it separated by ';' or tabs? cojudge reads comma-separated CSV"
            if kind == "csv" and len(found) == 1 and any(s in found[0] for s in ";\t")
            else ""
        )
        raise ImportFormatError(
            f"{path}: column 'item' is missing (the attempt's key, required); "
            f"columns found: {', '.join(found) or 'none'}{hint}"
        )
    if "score" not in found and "raw_answer" not in found:
        raise ImportFormatError(f"{path}: neither a 'score' nor a 'raw_answer' column; at least one is required")


def read_judgments(
    path: str | Path, *, judge: str | None = None, default_judge: str | None = None, condition: str | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The judgments of one file, normalized, and the rows that could not be read as one.

    Returns ``(judgments, rejects)``: ``judgments`` has :data:`JUDGMENT_COLUMNS` (the rows of ``judge``, or
    every row when ``judge`` is None or the file has no ``judge`` column; such a file's rows get the judge
    ``default_judge``, else ``judge``), ``condition`` filled with ``blind`` where empty; ``rejects`` has
    :data:`REJECT_COLUMNS`: JSONL lines that are not JSON objects and rows with an empty judge cell (judge
    null: they belong to no judge, so every judge reading the file reports them), and rows of this judge whose
    ``s_algo``/``s_robust`` is a number but not an integer. Every data row of the file is in one of the two
    (or belongs to another judge). Raises :class:`ImportFormatError` for whole-file problems (module docstring).

    ``condition``: only the judgments of that condition (an imported judge's partition). A Parquet file is then read
    by row in the scan (:func:`_parquet_rows`): the judge's rows of that condition, and under blind the rows whose
    rejects are reported there (an empty judge cell, a rubric score); a cell is checked in the rows read, and the
    rejects are those of the rows read. Another format is read whole, as without it.
    """
    path = Path(path)
    kind = EXTENSIONS.get(path.suffix.lower())
    if kind is None:
        raise ImportFormatError(
            f"{path}: unknown extension {path.suffix or '(none)'!r}; cojudge judgments are "
            f"read from {', '.join(EXTENSIONS)} files"
        )
    if not path.is_file():
        raise ImportFormatError(f"{path}: judgments file not found")
    if path.stat().st_size == 0:
        raise ImportFormatError(f"{path}: the file is empty (a CSV needs at least its header row)")
    source = str(path)
    bad: list[dict] = []
    if kind == "csv":
        raw = _read_csv(path)
    elif kind == "jsonl":
        raw, bad = _read_jsonl(path)
    else:
        raw = _read_parquet(path, judge, condition)
    if len(raw) > 0 or kind != "jsonl":  # a JSONL file's columns are those its objects use
        _required_columns(path, kind, [c for c in raw.columns if c != "source_line"])
    if kind == "csv":  # blank lines (every cell empty) hold no row
        cells = [c for c in raw.columns if c != "source_line"]
        raw = raw.filter(~pl.all_horizontal(pl.col(c).is_null() for c in cells)) if cells else raw.clear()
    rejects = [
        {"source_file": source, "judge": None, **r, "reason": f"{source}:{r['source_line']}: {r['reason']}"}
        for r in bad
    ]

    typed = pl.DataFrame(
        {
            name: _typed(path, raw, name)
            if name in raw.columns
            else pl.Series(name, [None] * len(raw), dtype=pl.Float64 if name in _NUMERIC else pl.String)
            for name in FILE_COLUMNS
        }
    ).with_columns(source_line=raw["source_line"])
    if "judge" in raw.columns:
        no_judge = typed["judge"].is_null() | (typed["judge"].str.strip_chars() == "")
        rejects += [
            {
                "source_file": source,
                "source_line": line,
                "judge": None,
                "field": "judge",
                "reason": f"{source}:{line}: field 'judge': empty in a file with a judge column "
                f"(the row belongs to no judge)",
            }
            for line in typed.filter(no_judge)["source_line"]
        ]
        typed = typed.filter(~no_judge).with_columns(judge=pl.col("judge").str.strip_chars())
        if judge is not None:
            mine = typed.filter(pl.col("judge") == judge)
            if not len(mine):  # rows read by condition (a Parquet partition): the judge may have rows elsewhere
                names = typed["judge"].unique().sort().to_list() if kind != "parquet" else _judges_in_parquet(path)
                if names and judge not in names:
                    _no_row_of(path, judge, names)
            typed = mine
    else:
        typed = typed.with_columns(judge=pl.lit(default_judge if default_judge is not None else judge, pl.String))

    not_integer = pl.lit(False)
    for name in _RUBRIC:  # a rubric score must be an integer to be a rubric score at all
        value = pl.col(name)
        wrong = value.is_not_null() & (~value.is_finite() | (value != value.floor()) | (value.abs() > 2**31 - 1))
        for line, judge_name, shown in typed.filter(wrong).select("source_line", "judge", name).iter_rows():
            rejects.append(
                {
                    "source_file": source,
                    "source_line": line,
                    "judge": judge_name,
                    "field": name,
                    "reason": f"{source}:{line}: field {name!r}: {_num(shown)} is not an integer in 1..5",
                }
            )
        not_integer = not_integer | wrong
    typed = typed.filter(~not_integer)

    cell = pl.col("condition").str.strip_chars()
    judgments = typed.with_columns(
        condition=pl.when(cell.is_null() | (cell == "")).then(pl.lit(BLIND)).otherwise(cell),
        s_algo=pl.col("s_algo").cast(pl.Int32),
        s_robust=pl.col("s_robust").cast(pl.Int32),
        source_file=pl.lit(source, pl.String),
    ).select([pl.col(name).cast(dtype) for name, dtype in JUDGMENT_COLUMNS.items()])
    if condition is not None:
        judgments = judgments.filter(pl.col("condition") == condition)
    reject_frame = _rejects(rejects).sort("source_line", maintain_order=True) if rejects else _empty_rejects()
    return judgments, reject_frame


# ---------------------------------------------------------------------------------------------------------------
# Answers: the judgments on the declared scale, in the shape of cojudge's judge outputs.


def _number_text(score: pl.Expr) -> pl.Expr:
    whole = score.is_finite() & (score == score.floor()) & (score.abs() < 1e15)
    return pl.when(whole).then(score.cast(pl.Int64).cast(pl.String)).otherwise(score.cast(pl.String))


def answers(
    frame: pl.DataFrame, scale: Scale, known_items: set[str] | None = None
) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The judgments as cojudge answers on ``scale``, and the rows that cannot enter.

    ``frame`` has :data:`JUDGMENT_COLUMNS` (from :func:`read_judgments` or an adapter). Returns ``(answers,
    rejects)`` with :data:`ANSWER_COLUMNS` and :data:`REJECT_COLUMNS`; ``len(frame) == len(answers) +
    len(rejects)``. A row is rejected for an empty item, an item not in ``known_items`` (when given), an
    unknown condition, ``s_algo``/``s_robust`` outside 1..5, or being a later duplicate of an item x judge x
    condition; every other row is an answer, ``ok`` with ``p_accept = (score - min) / (max - min)`` or
    ``invalid`` with the reason in ``error``. Without a score the raw answer is read only when it is exactly one
    number; nothing is guessed.

    >>> frame = pl.DataFrame({"item": ["a", "b"], "raw_answer": ["3", "Score: 3"], "source_line": [2, 3]})
    >>> frame = frame.with_columns(pl.lit(None, dtype).alias(name) for name, dtype in JUDGMENT_COLUMNS.items()
    ...                            if name not in frame.columns)
    >>> out, rejected = answers(frame, Scale(min=0, max=4, integer=True))
    >>> out["p_accept"].to_list(), out["status"].to_list(), len(rejected)
    ([0.75, None], ['ok', 'invalid'], 0)
    """
    missing = [name for name in JUDGMENT_COLUMNS if name not in frame.columns]
    if missing:
        raise ValueError(
            f"answers(): the judgments frame lacks column(s) {', '.join(missing)} (expected JUDGMENT_COLUMNS)"
        )
    rows = frame.select([pl.col(name).cast(dtype) for name, dtype in JUDGMENT_COLUMNS.items()]).with_columns(
        condition=pl.col("condition").fill_null(BLIND), _row=pl.int_range(pl.len(), dtype=pl.Int64)
    )
    where = pl.format(
        "{}:{}: ", pl.col("source_file").fill_null("(imported)"), pl.col("source_line").cast(pl.String).fill_null("?")
    )

    # Why a row cannot enter, first reason wins: (field, reason) as two expressions.
    item = pl.col("item")
    checks: list[tuple[pl.Expr, str, pl.Expr]] = [
        (item.is_null() | (item.str.strip_chars() == ""), "item", pl.lit("empty item key")),
        (
            ~pl.col("condition").is_in(list(CONDITIONS)),
            "condition",
            pl.format(
                "{} is not a condition (expected one of {})",
                pl.lit("'") + pl.col("condition") + pl.lit("'"),
                pl.lit(", ".join(CONDITIONS)),
            ),
        ),
    ]
    if known_items is not None:
        checks.append(
            (
                ~item.is_in(pl.Series(list(known_items), dtype=pl.String).implode()),
                "item",
                pl.format("unknown item key '{}' (not an attempt_uid of the corpus)", item),
            )
        )
    for name in _RUBRIC:
        checks.append(
            (
                pl.col(name).is_not_null() & ~pl.col(name).is_between(1, 5),
                name,
                pl.format("{} is outside 1..5 (expected an integer in 1..5)", pl.col(name)),
            )
        )
    field, reason = pl.lit(None, pl.String), pl.lit(None, pl.String)
    for failed, name, text in reversed(checks):
        field = pl.when(failed.fill_null(True)).then(pl.lit(name)).otherwise(field)
        reason = pl.when(failed.fill_null(True)).then(text).otherwise(reason)
    rows = rows.with_columns(_field=field, _reason=reason)

    # Duplicates among the rows that enter: the first (in frame order) is kept.
    entering = rows.filter(pl.col("_field").is_null())
    key = ["item", "judge", "condition"]
    first = pl.struct(key).is_first_distinct()  # a hash pass; a window per key is far slower on many keys
    kept, later = entering.filter(first), entering.filter(~first)
    duplicates = later.join(
        kept.select(*key, _first="source_line"), on=key, how="left", nulls_equal=True, maintain_order="left"
    ).with_columns(
        _field=pl.lit("item"),
        _reason=pl.format("duplicate of line {} (same item, judge and condition)", pl.col("_first")),
    )
    refused = pl.concat([rows.filter(pl.col("_field").is_not_null()), duplicates.select(rows.columns)])
    rejects = refused.sort("_row").select(
        "source_file",
        "source_line",
        "judge",
        field="_field",
        reason=pl.concat_str([where, pl.lit("field '"), pl.col("_field"), pl.lit("': "), pl.col("_reason")]),
    )

    # The score: the score column, else a raw answer that is exactly one number.
    raw = pl.col("raw_answer").str.strip_chars()
    readable = raw.str.contains(_ONE_NUMBER).fill_null(False)
    score = pl.coalesce(pl.col("score"), pl.when(readable).then(raw.cast(pl.Float64, strict=False)))
    kept = kept.with_columns(
        _score=score, _from=pl.when(pl.col("score").is_not_null()).then(pl.lit("score")).otherwise(pl.lit("raw_answer"))
    )
    lo, hi = scale.min, scale.max
    s = pl.col("_score")
    problem = (
        pl.when(s.is_null() & pl.col("raw_answer").is_null())
        .then(pl.lit(f"field 'score': empty, and no raw_answer (expected a number on the declared {scale})"))
        .when(s.is_null())
        .then(
            pl.format(
                "field 'raw_answer': {} is not a number (expected exactly one number on the declared "
                f"{scale}, nothing else in the text)",
                pl.lit("'") + pl.col("raw_answer").str.slice(0, _SHOWN) + pl.lit("'"),
            )
        )
        .when(~s.is_finite())
        .then(
            pl.format(
                "field '{}': {} is not a finite number on the declared " + str(scale), pl.col("_from"), _number_text(s)
            )
        )
        .when((s < lo) | (s > hi))
        .then(pl.format("field '{}': {} is outside the declared " + str(scale), pl.col("_from"), _number_text(s)))
    )
    if scale.integer:
        problem = problem.when(s != s.floor()).then(
            pl.format(
                "field '{}': {} is not an integer on the declared " + str(scale), pl.col("_from"), _number_text(s)
            )
        )
    kept = kept.with_columns(_problem=problem.otherwise(pl.lit(None, pl.String)))
    ok = pl.col("_problem").is_null()
    result = kept.sort("_row").select(
        attempt_uid="item",
        condition="condition",
        status=pl.when(ok).then(pl.lit("ok")).otherwise(pl.lit("invalid")),
        p_accept=pl.when(ok).then((s - lo) / (hi - lo)),
        s_algo="s_algo",
        s_robust="s_robust",
        rationale="rationale",
        raw_response=pl.coalesce(pl.col("raw_answer"), _number_text(pl.col("score"))),
        served_model="model",
        error=pl.when(ok).then(pl.lit("")).otherwise(pl.concat_str([where, pl.col("_problem")])),
        source_line="source_line",
    )
    return (
        result.select([pl.col(n).cast(t) for n, t in ANSWER_COLUMNS.items()]),
        rejects.select([pl.col(n).cast(t) for n, t in REJECT_COLUMNS.items()]),
    )


def load_imported(
    source: ImportedSource, *, judge_name: str, known_items: set[str] | None = None, base_dir: str | Path | None = None
) -> ImportedJudgments:
    """Read, validate and map one imported judge's rows: :func:`read_judgments` then :func:`answers`.

    The file's judge column value is ``source.judge`` or else ``judge_name``; a file without a judge column is
    all ``judge_name``'s. The rejects are the read rejects followed by the answer rejects.
    """
    path = source.resolve(base_dir)
    digest = file_sha256(path) if path.is_file() else ""
    judgments, read_rejects = read_judgments(path, judge=source.judge or judge_name, default_judge=judge_name)
    answered, refused = answers(judgments, source.scale, known_items)
    rejects = pl.concat([read_rejects, refused])
    return ImportedJudgments(
        path=path, sha256=digest, answers=answered, rejects=rejects, rows=len(answered) + len(rejects)
    )
