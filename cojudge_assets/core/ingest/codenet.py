"""Importing the Project CodeNet layout as problems and attempts.

Layout (as IBM distributes it): ``metadata/problem_list.csv`` (id, name, time_limit
in ms, memory_limit in KiB), ``metadata/pXXXXX.csv`` (submission_id, problem_id,
user_id, date as Unix seconds, language, original_language, filename_ext, status,
...), ``data/pXXXXX/<Language>/<submission_id>.<ext>`` and
``problem_descriptions/pXXXXX.html``.

* ``user_id`` is the participant; turn order is ``date`` then submission_id;
  ``attempt_uid`` is the code file's path (``data/p00001/C++/s123.cpp``).
* ``status`` is the verdict field: Accepted, Wrong Answer, Time Limit Exceeded,
  Runtime Error, Compile Error, Memory Limit Exceeded (RE), Output Limit
  Exceeded and Presentation Error (WA); anything else ("Judge System Error",
  "Internal error", ...) is quarantined with its status.
* A statement's sample pairs are the ``<pre>`` blocks after headings that say
  "Sample Input"/"Sample Output" (or AtCoder's 入力例/出力例).
"""

from __future__ import annotations

import hashlib
import re
from datetime import UTC, datetime
from pathlib import Path

import polars as pl
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from cojudge_assets.core.execution.contest_judge.languages import normalize_language
from cojudge_assets.core.ingest.attempts import ATTEMPT_SCHEMA, QUARANTINE_SCHEMA, assign_turns
from cojudge_assets.core.ingest.kattis import DEFAULT_MEMORY_MB, DEFAULT_TIME_LIMIT_S
from cojudge_assets.core.ingest.pages import PageError, decode_page
from cojudge_assets.core.ingest.problems import PROBLEM_SCHEMA

CODENET_STATUS = {
    "accepted": "AC",
    "wrong answer": "WA",
    "time limit exceeded": "TLE",
    "runtime error": "RE",
    "compile error": "CE",
    "memory limit exceeded": "RE",
    "output limit exceeded": "WA",
    "wa: presentation error": "WA",
    "presentation error": "WA",
}
_SAMPLE_IN = re.compile(r"sample\s*input|入力例", re.IGNORECASE)
_SAMPLE_OUT = re.compile(r"sample\s*output|出力例", re.IGNORECASE)


class CodeNetError(ValueError):
    pass


def statement_samples(html_text: str) -> tuple[str, list[str], list[str]]:
    """(statement as text, sample inputs, sample outputs) of a CodeNet problem description."""
    tree = HTMLParser(html_text)
    for node in tree.css("script, style"):
        node.decompose()
    inputs: list[str] = []
    outputs: list[str] = []
    expecting: list[str] | None = None
    for node in tree.css("h1, h2, h3, h4, h5, h6, pre, var, p"):
        if (node.tag or "").startswith("h") or node.tag == "p" and node.css_first("b, strong"):
            heading = node.text()
            expecting = inputs if _SAMPLE_IN.search(heading) else outputs if _SAMPLE_OUT.search(heading) else None
        elif node.tag == "pre" and expecting is not None:
            expecting.append(node.text(deep=True).strip("\n") + "\n")
            expecting = None
    body = tree.body.text(separator="\n") if tree.body else tree.text()
    return re.sub(r"\n{3,}", "\n\n", body).strip(), inputs, outputs


def read_codenet_problems(corpus: Path) -> pl.DataFrame:
    root = Path(corpus)
    limits = {}
    listing = root / "metadata" / "problem_list.csv"
    if listing.is_file():
        for row in pl.read_csv(listing, infer_schema=False).iter_rows(named=True):
            limits[row["id"]] = row
    rows = []
    for path in sorted((root / "problem_descriptions").glob("*.html")):
        pid = path.stem
        statement, ins, outs = statement_samples(path.read_text(encoding="utf-8", errors="replace"))
        meta = limits.get(pid, {})
        time_ms, mem_kb = meta.get("time_limit"), meta.get("memory_limit")
        rows.append(
            {
                "problem_id": pid,
                "name": meta.get("name") or pid,
                "statement": statement,
                "time_limit_s": float(time_ms) / 1000 if time_ms else DEFAULT_TIME_LIMIT_S,
                "memory_mb": int(float(mem_kb)) // 1024 if mem_kb else DEFAULT_MEMORY_MB,
                "limits_stated": bool(time_ms),
                "sample_inputs": ins[: len(outs)],
                "sample_outputs": outs[: len(ins)],
                "n_secret_tests": 0,
                "tests_location": "",
            }
        )
    return pl.DataFrame(rows, schema=PROBLEM_SCHEMA)


def read_codenet(corpus: Path) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """(attempts, quarantine, number of submission rows) of a CodeNet-layout corpus."""
    root = Path(corpus)
    metas = sorted(p for p in (root / "metadata").glob("p*.csv") if re.fullmatch(r"p\d+\.csv", p.name))
    if not metas:
        raise CodeNetError(f"{root / 'metadata'}: no pXXXXX.csv submission tables (CodeNet layout)")
    rows: list[dict] = []
    rejected: list[dict[str, str | None]] = []
    total = 0
    for meta in metas:
        table = pl.read_csv(meta, infer_schema=False)
        for column in ("submission_id", "problem_id", "user_id", "date", "language", "filename_ext", "status"):
            if column not in table.columns:
                raise CodeNetError(f"{meta}: no column {column!r}")
        for row in table.iter_rows(named=True):
            total += 1
            rel = f"data/{row['problem_id']}/{row['language']}/{row['submission_id']}.{row['filename_ext']}"
            source = f"metadata/{meta.name}#{row['submission_id']}"
            verdict = CODENET_STATUS.get(row["status"].strip().lower())
            if verdict is None:
                rejected.append(
                    {
                        "source_path": source,
                        "stage": "label",
                        "field": "status",
                        "reason": f"{source}: status {row['status']!r} is not a verdict",
                    }
                )
                continue
            path = root / rel
            if not path.is_file():
                rejected.append(
                    {
                        "source_path": source,
                        "stage": "code",
                        "field": "filename_ext",
                        "reason": f"{source}: code file {rel} is missing",
                    }
                )
                continue
            try:
                code = decode_page(path.read_bytes(), rel)
            except PageError as exc:
                rejected.append(
                    {"source_path": source, "stage": exc.stage, "field": exc.field, "reason": f"{source}: {exc.reason}"}
                )
                continue
            try:
                language = normalize_language(row.get("original_language") or row["language"])
            except ValueError:
                try:
                    language = normalize_language(row["language"])
                except ValueError:
                    language = row["language"].lower()
            date = row["date"].strip()
            rows.append(
                {
                    "attempt_uid": rel,
                    "source_path": rel,
                    "participant": row["user_id"],
                    "problem_id": row["problem_id"],
                    "submitted_at": datetime.fromtimestamp(int(date), tz=UTC).replace(tzinfo=None)
                    if date.isdigit()
                    else None,
                    "page_saved_at": None,
                    "file_order": None,
                    "submission_id": row["submission_id"],
                    "language": language,
                    "language_label": row["language"],
                    "code": code,
                    "code_sha256": hashlib.sha256(code.encode()).hexdigest(),
                    "result": row["status"],
                    "verdict": verdict,
                    "accepted": verdict == "AC",
                    "page_format": "codenet",
                }
            )
    frame = pl.DataFrame(rows, schema={k: v for k, v in ATTEMPT_SCHEMA.items() if k != "turn"})
    frame = assign_turns(frame, order=("submitted_at", "submission_id"))
    return frame.select(list(ATTEMPT_SCHEMA)), pl.DataFrame(rejected, schema=QUARANTINE_SCHEMA), total
