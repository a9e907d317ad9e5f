"""Switching the corpus resource to another layout materializes the same ingest assets."""

from __future__ import annotations

import dagster as dg
import duckdb

from cojudge_assets.definitions import LABEL_AUDIT_JOB, build_definitions
from cojudge_tests.core.test_importers import write_codenet, write_progsnap2

INGEST = ["problems", "submission_pages", "attempts", "prompt_logs", "quarantine", "participant_context", "label_audit"]


def _materialize(tmp_path, monkeypatch, corpus, layout):
    db = tmp_path / "layout.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    defs = build_definitions()
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": layout}}}}
    instance = dg.DagsterInstance.ephemeral()
    result = defs.resolve_job_def("ingest").execute_in_process(run_config=config, instance=instance)
    assert result.success
    materialized = {e.asset_key.to_user_string() for e in result.get_asset_materialization_events()}
    audit = defs.resolve_job_def(LABEL_AUDIT_JOB)  # the label audit: its own job, one run per bucket
    for bucket in audit.partitions_def.get_partition_keys():
        done = audit.execute_in_process(run_config=config, instance=instance, partition_key=bucket)
        assert done.success
        materialized |= {e.asset_key.to_user_string() for e in done.get_asset_materialization_events()}
    assert set(INGEST) <= materialized
    return duckdb.connect(str(db), read_only=True)


def test_codenet_layout_materializes(tmp_path, monkeypatch):
    con = _materialize(tmp_path, monkeypatch, write_codenet(tmp_path / "codenet"), "codenet")
    assert con.sql("select count(*) from main.attempts").fetchone()[0] == 2
    assert con.sql("select count(*) from main.quarantine").fetchone()[0] == 2
    assert con.sql("select sample_outputs from main.problems").fetchone()[0] == ["3\n", "10\n"]
    assert con.sql("select count(*) from main.participant_context").fetchone()[0] == 6


def test_progsnap2_layout_materializes(tmp_path, monkeypatch):
    con = _materialize(tmp_path, monkeypatch, write_progsnap2(tmp_path / "ps2"), "progsnap2")
    assert con.sql("select count(*) from main.attempts").fetchone()[0] == 5
    # no problem packages with tests: nothing to audit, and the audit says so with an empty table
    assert con.sql("select count(*) from main.label_audit").fetchone()[0] == 0
