"""The ingest group materialized on the shared real corpora (skipped when they are absent)."""

from __future__ import annotations

import dagster as dg
import duckdb
import polars as pl
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_tests.conftest import SHARED_CORPORA

pytestmark = pytest.mark.skipif(not SHARED_CORPORA.is_dir(), reason=f"shared corpora not found at {SHARED_CORPORA}")


def materialize_ingest(tmp_path, monkeypatch, corpus: str, layout: str) -> duckdb.DuckDBPyConnection:
    db = tmp_path / "ingest.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    defs = build_definitions()
    job = defs.resolve_job_def("ingest")
    result = job.execute_in_process(
        run_config={"resources": {"corpus": {"config": {"path": str(SHARED_CORPORA / corpus), "layout": layout}}}},
        instance=dg.DagsterInstance.ephemeral(),
    )
    assert result.success
    return duckdb.connect(str(db), read_only=True)


def _main_table(corpus: str) -> pl.DataFrame:
    table = pl.read_csv(SHARED_CORPORA / corpus / "progsnap2" / "MainTable.csv", infer_schema=False)
    return table.fill_null("").filter(pl.col("EventType") == "Submit")


@pytest.mark.parametrize(
    "corpus,problems,subjects,events",
    [
        ("itsp-c", 28, 341, 682),  # corpus README: 28 problems, 341 subjects, 682 events
        ("csedm2019-python", 38, 44, 1466),  # 38 problems (35 used), 44 subjects, 1,466 events
        ("condefects-atcoder", 465, 300, 600),  # 465 problems (259 used), 300 subjects, 600 events
    ],
)
def test_progsnap2_corpora(tmp_path, monkeypatch, corpus, problems, subjects, events):
    con = materialize_ingest(tmp_path, monkeypatch, corpus, "progsnap2")
    n_attempts = con.sql("select count(*) from main.attempts").fetchone()[0]
    n_quarantined = con.sql("select count(*) from main.quarantine").fetchone()[0]
    assert n_attempts + n_quarantined == events
    assert con.sql("select count(*) from main.problems").fetchone()[0] == problems
    main = _main_table(corpus)
    assert main["SubjectID"].n_unique() == subjects
    seen = set(con.sql("select distinct participant from main.attempts").pl()["participant"])
    assert seen <= set(main["SubjectID"])
    trajectories = con.sql("select count(distinct (participant, problem_id)) from main.attempts").fetchone()[0]
    labelled = main.filter((pl.col("Correct") != "") | (pl.col("Verdict") != "") | (pl.col("Score") != ""))
    assert trajectories == labelled.select("SubjectID", "ProblemID").n_unique()
    # turns are 1..n within every trajectory
    gaps = con.sql(
        "select count(*) from (select participant, problem_id, max(turn) m, count(*) n "
        "from main.attempts group by 1, 2) where m <> n"
    ).fetchone()[0]
    assert gaps == 0


def test_itsp_labels_and_order(tmp_path, monkeypatch):
    con = materialize_ingest(tmp_path, monkeypatch, "itsp-c", "progsnap2")
    verdicts = dict(con.sql("select verdict, count(*) from main.attempts group by 1").fetchall())
    assert verdicts == {"AC": 341, "WA": 341}
    # no timestamps in ITSP: order comes from Order within a subject (buggy first, then corrected)
    first = con.sql("select verdict from main.attempts where turn = 1").pl()["verdict"]
    assert set(first) == {"WA"}


def test_csedm_unlabelled_events_are_quarantined(tmp_path, monkeypatch):
    con = materialize_ingest(tmp_path, monkeypatch, "csedm2019-python", "progsnap2")
    main = _main_table("csedm2019-python")
    unlabelled = main.filter((pl.col("Correct") == "") & (pl.col("Verdict") == "") & (pl.col("Score") == "")).height
    rows = con.sql("select stage, field, reason from main.quarantine").pl()
    assert rows.height == unlabelled > 0
    assert set(rows["stage"]) == {"label"} and all("no usable label" in r for r in rows["reason"])


def test_condefects_faulty_programs_are_rejected_not_wrong_answer(tmp_path, monkeypatch):
    con = materialize_ingest(tmp_path, monkeypatch, "condefects-atcoder", "progsnap2")
    verdicts = dict(con.sql("select verdict, count(*) from main.attempts group by 1").fetchall())
    assert verdicts == {"AC": 300, "REJ": 300}


def test_codenet_statements_as_kattis_packages():
    from cojudge_assets.core.ingest.problems import problems_table

    table = problems_table(SHARED_CORPORA / "codenet-statements" / "problems")
    assert table.height == 215
    assert (table["sample_inputs"].list.len() >= 1).all()
    empty_outputs = table.explode("sample_outputs").filter(pl.col("sample_outputs").str.strip_chars() == "")
    # a genuinely empty sample output is kept as an empty answer, not dropped
    assert "p02248" in set(empty_outputs["problem_id"])
