"""Every step that applies to imported judges, on a generated study with thousands of distinct continuous scores.

The held-out course corpus (1,322 attempts) failed in a step nothing had run at that shape: continuous scores,
one value per program (issue 33). This study has 2,000 attempts in 400 trajectories and two imported judges x
three conditions whose scores are all distinct, with a planted ROC-AUC (core/ingest/synthetic.py); the graph runs
from ingest to the last table before the report, in process (the sandbox steps, which execute code, have no
tests to run here, and findings and the report read them;
core/graded's metrics are run at 5,000 distinct scores by cojudge_tests/core/test_graded_metrics.py)."""

from __future__ import annotations

import dagster as dg
import duckdb
import pytest

from cojudge_assets.core.ingest.synthetic import (
    SANDBOX_STEPS,
    SEPARATION,
    planted_auc,
    write_corpus,
    write_judgments,
)
from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import _materializable, run_steps


@pytest.mark.slow
@pytest.mark.timeout(2400)  # the whole graph in process: about 20 min on 2 cores at load 35
def test_every_step_completes_on_thousands_of_distinct_continuous_scores(tmp_path, monkeypatch):
    labels = write_corpus(tmp_path / "corpus", 2000, seed=7)
    judges = write_judgments(tmp_path, labels, seed=7)
    db = tmp_path / "size.duckdb"
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    defs = build_definitions(corpus=str(tmp_path / "corpus"), layout="progsnap2")
    steps = tuple(k.to_user_string() for k in _materializable(defs) if k.to_user_string() not in SANDBOX_STEPS)
    lines: list[str] = []
    outcome = run_steps(defs, dg.DagsterInstance.ephemeral(), jobs=steps, echo=lines.append)
    assert outcome, "\n".join(lines)
    assert not outcome.waiting, "\n".join(lines)
    materialized = {name for name, _ in outcome.materialized}
    assert materialized == set(steps), set(steps) - materialized
    with duckdb.connect(str(db), read_only=True) as conn:
        distinct = conn.sql("select count(distinct p_accept) from main.judge_outputs where status = 'ok'").fetchone()
        assert distinct[0] > 10_000  # 6 x 2,000 continuous scores
        auc = conn.sql(
            "select judge, condition, value, lo, hi from main.judge_metrics where metric = 'roc_auc'"
        ).fetchall()
    assert len(auc) == 6
    for judge, condition, value, lo, hi in auc:
        planted = planted_auc(SEPARATION[judge][condition])
        assert lo < value < hi and abs(value - planted) < 0.04, (judge, condition, value, planted)
