"""Judge requests: one canonical request per (attempt, condition), never carrying a label.

The request holds problem_id, the full statement, the language, the code and the
condition's participant context (seed study IV-A4). The verdict, the Result
string and anything derived from them stay out by construction (the request
model has no field for them) and by check (:func:`label_leaks`).
"""

from __future__ import annotations

import json
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import polars as pl

from cojudge_assets.core.judging.models import JudgeRequest
from cojudge_assets.core.judging.prompts import PROMPT_VERSION, canonical_json, request_hash

REQUEST_SCHEMA = {
    "attempt_uid": pl.String,
    "condition": pl.String,
    "problem_id": pl.String,
    "request_json": pl.String,
    "request_hash": pl.String,
    "prompt_version": pl.String,
    "source_code": pl.String,
    "context_chars": pl.Int64,
}


def build_requests(
    attempts: pl.DataFrame, problems: pl.DataFrame, contexts: pl.DataFrame, condition: str, *, ask_score: bool = False
) -> pl.DataFrame:
    """One row per attempt under ``condition``; the statement comes from ``problems``; ``ask_score``: ask for
    AXIOM's 0-5 score too (the graded programs' requests)."""
    statements = dict(zip(problems["problem_id"].to_list(), problems["statement"].to_list()))
    context = contexts.filter(pl.col("condition") == condition)
    joined = attempts.join(context.select("attempt_uid", "context"), on="attempt_uid", how="left")
    columns: dict[str, list] = {name: [] for name in REQUEST_SCHEMA}  # by column: no dict per request held
    for a in joined.sort("attempt_uid").iter_rows(named=True):
        request = JudgeRequest(
            problem_id=a["problem_id"],
            problem_statement=statements.get(a["problem_id"], ""),
            language=a["language_label"] or a["language"],
            source_code=a["code"],
            prompt_text=a["context"] or "",
            ask_score=ask_score,
        )
        row = {
            "attempt_uid": a["attempt_uid"],
            "condition": condition,
            "problem_id": a["problem_id"],
            "request_json": canonical_json(request),
            "request_hash": request_hash(request),
            "prompt_version": PROMPT_VERSION,
            "source_code": a["code"],
            "context_chars": len(request.prompt_text),
        }
        for name, value in row.items():
            columns[name].append(value)
    return pl.DataFrame(columns, schema=REQUEST_SCHEMA)


LABEL_COLUMNS = ("result", "verdict", "accepted")


def label_leaks(
    requests: pl.DataFrame, attempts: pl.DataFrame, problems: pl.DataFrame, contexts: pl.DataFrame
) -> pl.DataFrame:
    """Requests that would change if their attempt's label changed, or that spell the label out.

    Two tests, both per row: (1) rebuilt with every label column (Result string,
    verdict, accepted) replaced by a sentinel, the request hash must not move, so
    nothing in a request is derived from a label; (2) the attempt's Result string
    must not appear in the fields the pipeline fills per attempt (problem_id,
    language). The statement is shared by all attempts of a problem and the
    source code may name a variable ``accepted``; the participant context is the
    participant's own text from before the code was written (it may quote the
    verdicts of earlier attempts, as in the study), so none of them is searched.
    """
    scrubbed = attempts.with_columns(
        pl.lit("<label>").alias("result"),
        pl.lit("<label>").alias("verdict"),
        pl.lit(None, dtype=pl.Boolean).alias("accepted"),
    )
    results = dict(zip(attempts["attempt_uid"].to_list(), attempts["result"].to_list()))
    bad = []
    for condition in requests["condition"].unique().sort().to_list():
        mine = requests.filter(pl.col("condition") == condition)
        again = build_requests(
            scrubbed.filter(pl.col("attempt_uid").is_in(mine["attempt_uid"].to_list())), problems, contexts, condition
        )
        moved = mine.join(
            again.select("attempt_uid", pl.col("request_hash").alias("label_free_hash")), on="attempt_uid", how="left"
        )
        for r in moved.iter_rows(named=True):
            request = json.loads(r["request_json"])
            result = (results.get(r["attempt_uid"]) or "").strip()
            spelled = result and any(
                re.search(rf"(?<!\w){re.escape(result)}(?!\w)", str(request[k]), re.IGNORECASE)
                for k in ("problem_id", "language")
            )
            if r["label_free_hash"] != r["request_hash"] or spelled:
                bad.append({"attempt_uid": r["attempt_uid"], "condition": condition, "label": result})
    return pl.DataFrame(bad, schema={"attempt_uid": pl.String, "condition": pl.String, "label": pl.String})


def _jsonl_lines(requests: pl.DataFrame) -> Iterator[str]:
    """The JSONL lines of ``requests`` in their order, each ending in a newline."""
    for r in requests.iter_rows(named=True):
        line = json.dumps(
            {
                "attempt_uid": r["attempt_uid"],
                "condition": r["condition"],
                "request_hash": r["request_hash"],
                "prompt_version": r["prompt_version"],
                "request": json.loads(r["request_json"]),
            },
            sort_keys=True,
            ensure_ascii=False,
        )
        yield line + "\n"


def write_jsonl(requests: pl.DataFrame, path: Path) -> int:
    """The model-agnostic requests file shared by all judges: one JSON object per line, sorted; its line count.
    Written line by line beside ``path`` and renamed over it at the end (no list of the lines held: at 10^6
    requests the lines and their join were gigabytes; a killed write leaves the previous file whole)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    lines = 0
    try:
        with partial.open("w", encoding="utf-8") as out:
            for line in _jsonl_lines(requests.sort("condition", "attempt_uid")):
                out.write(line)
                lines += 1
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    return lines


# attempts per slice of :func:`build_condition`: its Python objects (a request model, a JSON string, a dict per
# JSONL line) live for one slice; ~50 MB of them at 50,000 short programs
CHUNK_ROWS = 50_000


@dataclass(frozen=True)
class ConditionRequests:
    """One condition's requests (:func:`build_requests`' table), its label leaks (:func:`label_leaks`) and the
    JSONL lines written."""

    table: pl.DataFrame
    leaks: pl.DataFrame
    lines: int


def build_condition(
    attempts: pl.DataFrame,
    problems: pl.DataFrame,
    contexts: pl.DataFrame,
    condition: str,
    path: Path,
    *,
    chunk_rows: int = CHUNK_ROWS,
) -> ConditionRequests:
    """The ``judge_requests`` partition of ``condition``, built, checked and written ``chunk_rows`` attempts at a
    time in attempt_uid order: the same table as :func:`build_requests` (rows in the same order), the same leaks
    as :func:`label_leaks` on it, and the same file as :func:`write_jsonl` at ``path``. The file is written beside
    and renamed over ``path`` at the end, so a killed build leaves the previous file whole. Only one slice's
    Python objects are alive at once (a partition of 10^6 attempts held ~2.5 GB of them built whole)."""
    if chunk_rows < 1:
        raise ValueError(f"chunk_rows: expected a positive number of attempts per slice, got {chunk_rows}")
    mine = contexts.filter(pl.col("condition") == condition)  # the other conditions' contexts are never read
    order = attempts["attempt_uid"].arg_sort()  # slices gathered in this order: no sorted copy of the attempts held
    tables, leaks, lines = [], [], 0
    path.parent.mkdir(parents=True, exist_ok=True)
    partial = path.with_name(path.name + ".partial")
    try:
        with partial.open("w", encoding="utf-8") as out:
            for start in range(0, len(order), chunk_rows):
                part = attempts[order.slice(start, chunk_rows)]
                table = build_requests(part, problems, mine, condition)
                leaks.append(label_leaks(table, part, problems, mine))
                for line in _jsonl_lines(table):
                    out.write(line)
                    lines += 1
                tables.append(table)
        partial.replace(path)
    finally:
        partial.unlink(missing_ok=True)
    if not tables:  # no attempt: the empty table and check, with their schemas
        tables = [build_requests(attempts, problems, mine, condition)]
        leaks = [label_leaks(tables[0], attempts, problems, mine)]
    return ConditionRequests(table=pl.concat(tables), leaks=pl.concat(leaks), lines=lines)


# the columns of its inputs build_condition reads (asset inputs load only these): the attempt's fields of a
# request, and its label columns, so that the label-leak check replaces them as it always did
REQUEST_INPUT_COLUMNS = {
    "attempts": ["attempt_uid", "problem_id", "language", "language_label", "code", *LABEL_COLUMNS],
    "problems": ["problem_id", "statement"],
    "participant_context": ["attempt_uid", "condition", "context"],
}
