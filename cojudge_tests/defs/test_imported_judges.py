"""Imported judges through the asset graph: files written by hand (CSV and JSONL) become judge_outputs partitions
with provenance, bad rows are reported by file, line and field, nothing is sent, and only a changed file is
imported again."""

from __future__ import annotations

import json
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2

JOBS = ("ingest", "judge_requests_job", "judge_outputs_job", "measurement_job")


def write_judges(path: Path) -> Path:
    path.write_text("""judges:
  - name: team-csv
    imported:
      path: imports/team.csv
      scale: {min: 0, max: 4, integer: true}
  - name: team-jsonl
    model: imported/sim-model
    imported:
      path: imports/team.jsonl
      judge: similarity
      scale: {min: 0, max: 1}
""")
    return path


def uids(tmp_path: Path) -> list[str]:
    with duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True) as conn:
        return [r[0] for r in conn.sql("select attempt_uid from main.attempts order by attempt_uid").fetchall()]


def write_files(tmp_path: Path, items: list[str], *, csv_extra: str = "", shift: float = 0.0) -> None:
    folder = tmp_path / "imports"
    folder.mkdir(exist_ok=True)
    lines = ["item,raw_answer,rationale"]
    lines += [f"{uid},{i % 5},looked at it" for i, uid in enumerate(items[:-2])]
    lines += [f"{items[-2]},Score: 3,prose instead of a digit", f"{items[-1]},7,outside the scale"]
    (folder / "team.csv").write_text("\n".join(lines) + "\n" + csv_extra)
    records = [
        {"item": uid, "judge": "similarity", "score": min(1.0, (i % 10) / 10 + shift), "model": "sim-1"}
        for i, uid in enumerate(items)
    ]
    records.append({"item": items[0], "judge": "similarity", "score": 0.5})  # duplicate of the first line
    records.append({"item": "no/such/attempt", "judge": "similarity", "score": 0.5})
    records.append({"item": items[1], "judge": "other-judge", "score": 0.9})  # another judge's row: left alone
    (folder / "team.jsonl").write_text("\n".join(json.dumps(r) for r in records) + "\n")


@pytest.fixture()
def graph(tmp_path, monkeypatch):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "j.duckdb"))
    monkeypatch.setenv("COJUDGE_JUDGES", str(write_judges(tmp_path / "judges.yaml")))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 30)
    defs = build_definitions(corpus=str(corpus), layout="progsnap2")
    instance = dg.DagsterInstance.ephemeral()
    assert run_steps(defs, instance, jobs=("ingest",), echo=lambda line: None)
    return defs, instance


def run(defs, instance) -> list[str]:
    lines: list[str] = []
    assert run_steps(defs, instance, jobs=JOBS, echo=lines.append)
    return lines


def test_hand_written_csv_and_jsonl_become_judges_with_provenance(tmp_path, graph):
    defs, instance = graph
    items = uids(tmp_path)
    write_files(tmp_path, items)
    run(defs, instance)
    conn = duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True)
    rows = conn.sql(
        "select judge, status, count(*) from main.judge_outputs where condition = 'blind' group by 1, 2 order by 1, 2"
    ).fetchall()
    assert rows == [("team-csv", "invalid", 2), ("team-csv", "ok", 28), ("team-jsonl", "ok", 30)]
    p = dict(
        conn.sql(
            "select attempt_uid, p_accept from main.judge_outputs where judge = 'team-csv' and status = 'ok'"
        ).fetchall()
    )
    assert p[items[3]] == pytest.approx(0.75) and p[items[4]] == pytest.approx(1.0) and p[items[0]] == 0.0
    errors = dict(conn.sql("select attempt_uid, error from main.judge_outputs where status = 'invalid'").fetchall())
    assert "'Score: 3' is not a number" in errors[items[-2]] and "outside" in errors[items[-1]]
    provenance = conn.sql("select distinct provenance, source from main.judge_cache").fetchall()
    assert {p for p, _ in provenance} == {"imported"}
    assert all("sha256:" in s for _, s in provenance)
    rejects = conn.sql(
        "select judge, source_line, field, reason from main.import_rejects order by source_line"
    ).fetchall()
    assert [(j, line, f) for j, line, f, _ in rejects] == [("team-jsonl", 31, "item"), ("team-jsonl", 32, "item")]
    assert "duplicate of line 1" in rejects[0][3] and "team.jsonl:32" in rejects[1][3]
    # never sent, and scored like any judge
    assert conn.sql("select count(*) from main.judge_cache where provenance = 'judged'").fetchone()[0] == 0
    scored = {
        r[0]
        for r in conn.sql(
            "select distinct judge from main.judge_metrics where metric = 'roc_auc' and condition = 'blind'"
        ).fetchall()
    }
    assert {"team-csv", "team-jsonl"} <= scored
    served = conn.sql("select distinct served_model from main.judge_outputs where judge = 'team-jsonl'").fetchall()
    assert served == [("sim-1",)]
    # the other conditions have no rows in either file: empty partitions, not errors
    assert conn.sql("select count(*) from main.judge_outputs where condition <> 'blind'").fetchone()[0] == 0
    conn.close()


def test_unchanged_files_are_not_imported_again_and_a_changed_file_only_its_judge(tmp_path, graph):
    defs, instance = graph
    write_files(tmp_path, uids(tmp_path))
    run(defs, instance)
    again = run(defs, instance)
    # nothing runs: every step up to date, or not run for an input outside the selection (findings' own)
    assert all("skipped" in line or ": not run, its input" in line for line in again), again
    write_files(tmp_path, uids(tmp_path), shift=0.05)  # the JSONL judge's scores move; the CSV is rewritten equal
    third = [line for line in run(defs, instance) if "skipped" not in line]
    outputs = [line for line in third if line.startswith("judge_outputs_job")]
    assert outputs and all("team-jsonl" in line for line in outputs), third
    assert any(line.startswith("measurement_job") for line in third)


def test_a_file_without_its_item_column_fails_the_partition_naming_file_and_column(tmp_path, graph):
    defs, instance = graph
    folder = tmp_path / "imports"
    folder.mkdir()
    (folder / "team.csv").write_text("attempt,raw_answer\nx,3\n")
    (folder / "team.jsonl").write_text(
        json.dumps({"item": uids(tmp_path)[0], "judge": "similarity", "score": 0.5}) + "\n"
    )
    lines: list[str] = []
    outcome = run_steps(defs, instance, jobs=("judge_requests_job", "judge_outputs_job"), echo=lines.append)
    assert not outcome
    failed = "\n".join(lines)
    assert "team.csv" in failed and "item" in failed


def test_a_condition_an_imported_file_has_no_rows_for_is_never_requested(tmp_path, graph):
    """Both files hold blind rows only: their prefix12k and nonblind partitions could hold nothing, so Dagster's
    evaluator never requests them (no empty runs) and the command lists no step for them."""
    from cojudge_assets.defs.automation import CursorFile, evaluate

    write_files(tmp_path, uids(tmp_path))
    defs = build_definitions(corpus=str(tmp_path / "corpus"), layout="progsnap2")  # built with the files present
    lines = run(defs, instance := graph[1])
    steps = [line.split(":")[0] for line in lines if line.startswith("judge_outputs_job")]
    assert sorted(steps) == ["judge_outputs_job[blind|team-csv]", "judge_outputs_job[blind|team-jsonl]"]
    materialized = instance.get_materialized_partitions(dg.AssetKey("judge_outputs"))
    assert materialized == {"blind|team-csv", "blind|team-jsonl"}
    found = evaluate(defs, instance, CursorFile(instance).load())  # the empty partitions: never requested
    assert dg.AssetKey("judge_outputs") not in found.partitions
    again = run(defs, instance)
    # findings waits for perturbation_metrics (not selected): not run, and said so
    assert all("skipped" in line or ": not run, its input" in line for line in again), again
    assert not any("prefix12k|team" in line or "nonblind|team" in line for line in again)
