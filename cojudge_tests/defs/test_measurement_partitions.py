"""The per-judge measurement tables are partitioned like judge_outputs (defs/measurement/assets.py): adding a judge
measures that judge's partitions only; the cross-judge tables read every judge."""

from __future__ import annotations

import dagster as dg
import duckdb
import polars as pl

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.measurement.assets import JUDGE_TABLES
from cojudge_assets.driver import run_steps
from cojudge_tests.defs.test_freshness import server  # noqa: F401 (the loopback judge's fixture)
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2

JOBS = ("ingest", "judge_requests_job", "judge_outputs_job", "measurement_job")


def test_adding_a_judge_measures_that_judge_only(tmp_path, monkeypatch, server):  # noqa: F811
    db = tmp_path / "m.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    judges = write_judges_file(tmp_path / "judges.yaml", server.api_base)  # the loopback judge alone
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 8)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    instance = dg.DagsterInstance.ephemeral()
    first = run_steps(build_definitions(), instance, config, conditions=["blind"], jobs=JOBS, echo=lambda _: None)
    assert first, first.line()
    assert {(name, key) for name, key in first.materialized if name in JUDGE_TABLES} == {
        (name, "blind|loop") for name in JUDGE_TABLES
    }

    write_judges_file(judges, server.api_base, local=True)  # a second judge: the local static rubric
    second = run_steps(build_definitions(), instance, config, conditions=["blind"], jobs=JOBS, echo=lambda _: None)
    assert second, second.line()
    measured = {(name, key) for name, key in second.materialized if name in JUDGE_TABLES}
    assert measured == {(name, "blind|static-rubric") for name in JUDGE_TABLES}  # not the loop judge's again
    assert ("agreement", None) in second.materialized  # the cross-judge tables read both judges
    with duckdb.connect(str(db), read_only=True) as conn:
        metrics = conn.execute("select judge, condition, metric, ci_method from main.judge_metrics").pl()
        agreement = conn.execute("select judge from main.agreement").pl()
    assert set(metrics["judge"]) == {"loop", "static-rubric"} and set(metrics["condition"]) == {"blind"}
    assert metrics.filter(pl.col("metric") == "roc_auc")["ci_method"].to_list() != []
    assert len(agreement) > 0


def test_the_per_judge_tables_have_the_judge_outputs_partitions_and_the_measurement_job_runs_them(
    tmp_path, monkeypatch
):
    from cojudge_assets.definitions import JUDGE_MEASUREMENT_JOB, MEASUREMENT_JOB
    from cojudge_assets.driver import resolve_selection

    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    defs = build_definitions()
    graph = defs.resolve_asset_graph()
    outputs = graph.get(dg.AssetKey("judge_outputs")).partitions_def
    for name in JUDGE_TABLES:
        node = graph.get(dg.AssetKey(name))
        assert node.partitions_def == outputs and node.automation_condition is not None, name
    for name in ("agreement", "condition_effects", "panel"):
        assert graph.get(dg.AssetKey(name)).partitions_def is None
    for job in (MEASUREMENT_JOB, JUDGE_MEASUREMENT_JOB):
        defs.resolve_job_def(job)  # one partitions definition per job, or Dagster refuses it
    chosen = {key.to_user_string() for key in resolve_selection(defs, [MEASUREMENT_JOB])}
    assert set(JUDGE_TABLES) | {"predictions", "agreement", "panel"} <= chosen
