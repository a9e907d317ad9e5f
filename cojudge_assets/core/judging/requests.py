"""Judge requests: one canonical request per (attempt, condition), never carrying a label.

The request holds problem_id, the full statement, the language, the code and the
condition's participant context (seed study IV-A4). The verdict, the Result
string and anything derived from them stay out by construction (the request
model has no field for them) and by check (:func:`label_leaks`).
"""

from __future__ import annotations

import json
import re
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


def write_jsonl(requests: pl.DataFrame, path: Path) -> int:
    """The model-agnostic requests file shared by all judges: one JSON object per line, sorted."""
    path.parent.mkdir(parents=True, exist_ok=True)
    lines = [
        json.dumps(
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
        for r in requests.sort("condition", "attempt_uid").iter_rows(named=True)
    ]
    path.write_text("".join(line + "\n" for line in lines), encoding="utf-8")
    return len(lines)
