"""Importing ProgSnap2 data sets (MainTable.csv + CodeStates) as attempts.

Layout: ``<corpus>/progsnap2/MainTable.csv``, ``<corpus>/progsnap2/CodeStates/``
holding either ``CodeStates.csv`` (CodeStateID, Code) or one folder per
CodeStateID with the code file inside, and optionally ``<corpus>/problems/``
(Kattis packages, for statements and tests).

* Only ``EventType == Submit`` rows are attempts; every Submit row ends in
  ``attempts`` or ``quarantine``.
* ``SubjectID`` is the participant, ``ProblemID`` the problem, ``EventID`` the
  natural key (``attempt_uid = "progsnap2/<EventID>"``).
* Turn order: ``ServerTimestamp`` where a trajectory has it on every row, else
  ``Order`` (numeric), then EventID.
* Label: an optional ``Verdict`` column in the verdict vocabulary wins; else
  ``Correct`` (true -> AC, false -> REJ); else ``Score`` (>= 1 -> AC, else REJ).
  ``REJ`` means "rejected, exact verdict unknown" (ConDefects' faulty programs
  are like that); it is a non-accepted label like WA. A row with none of these is
  quarantined ("no usable label").
* Language: the ``Language`` column, else the last part of ``ToolInstances``.
"""

from __future__ import annotations

import hashlib
from pathlib import Path

import polars as pl

from cojudge_assets.core.execution.contest_judge.languages import normalize_language
from cojudge_assets.core.ingest.attempts import ATTEMPT_SCHEMA, QUARANTINE_SCHEMA, assign_turns
from cojudge_assets.core.ingest.pages import DEFAULT_RESULT_VOCABULARY, map_verdict, parse_clock


class ProgSnap2Error(ValueError):
    pass


def _read_csv(path: Path) -> pl.DataFrame:
    if not path.is_file():
        raise ProgSnap2Error(f"{path}: missing (expected a ProgSnap2 table)")
    return pl.read_csv(path, infer_schema=False)


def read_code_states(folder: Path) -> dict[str, str]:
    """CodeStateID -> code, from CodeStates.csv or from one folder per code state."""
    table = folder / "CodeStates.csv"
    if table.is_file():
        states = _read_csv(table)
        for column in ("CodeStateID", "Code"):
            if column not in states.columns:
                raise ProgSnap2Error(f"{table}: no column {column!r}")
        return dict(zip(states["CodeStateID"].to_list(), states["Code"].to_list()))
    if not folder.is_dir():
        raise ProgSnap2Error(f"{folder}: missing (expected CodeStates.csv or one folder per CodeStateID)")
    codes = {}
    for state in sorted(p for p in folder.iterdir() if p.is_dir()):
        files = sorted(p for p in state.rglob("*") if p.is_file())
        if files:
            codes[state.name] = "\n".join(f.read_text(encoding="utf-8", errors="replace") for f in files)
    return codes


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


def read_progsnap2(corpus: Path, *, vocabulary: dict[str, str] | None = None) -> tuple[pl.DataFrame, pl.DataFrame, int]:
    """(attempts, quarantine, number of Submit rows) of a ProgSnap2 corpus."""
    vocabulary = vocabulary or DEFAULT_RESULT_VOCABULARY
    root = Path(corpus) / "progsnap2"
    main_path = root / "MainTable.csv"
    main = _read_csv(main_path)
    for column in ("EventType", "EventID", "SubjectID", "ProblemID", "CodeStateID"):
        if column not in main.columns:
            raise ProgSnap2Error(f"{main_path}: no column {column!r} (required by ProgSnap2)")
    codes = read_code_states(root / "CodeStates")
    submits = main.filter(pl.col("EventType") == "Submit")
    rows, rejected = [], []
    for row in submits.iter_rows(named=True):
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
        code = codes.get(row["CodeStateID"])
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
        label = (row.get("Language") or (row.get("ToolInstances") or "").split(";")[-1]).strip()
        try:
            language = normalize_language(label)
        except ValueError:
            language = label.lower()
        order = (row.get("Order") or "").strip()
        rows.append(
            {
                "attempt_uid": f"progsnap2/{row['EventID']}",
                "source_path": source,
                "participant": row["SubjectID"],
                "problem_id": row["ProblemID"],
                "submitted_at": parse_clock(row.get("ServerTimestamp") or ""),
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
        )
    frame = pl.DataFrame(rows, schema={k: v for k, v in ATTEMPT_SCHEMA.items() if k != "turn"})
    # a trajectory is ordered by its clock only when every row has one; else by Order
    complete = frame.group_by("participant", "problem_id").agg(
        pl.col("submitted_at").null_count().eq(0).alias("clocked")
    )
    frame = frame.join(complete, on=["participant", "problem_id"]).with_columns(
        pl.when(pl.col("clocked")).then(pl.col("submitted_at")).otherwise(None).alias("_clock")
    )
    ordered = assign_turns(frame, order=("_clock", "file_order", "submission_id"))
    return ordered.select(list(ATTEMPT_SCHEMA)), pl.DataFrame(rejected, schema=QUARANTINE_SCHEMA), submits.height
