"""The demo corpus's whole graph under the deployed profile, run by a deployment: Postgres (the test's own
cluster) for the instance and the judge store, Delta tables, and ``dagster-daemon`` launching every run the
automation sensor requests through the queue (no cojudge command). Every table equals the embedded DuckDB file
the README's command wrote for the same corpus (``demo_study``), row by row, times and run ids aside; afterwards
the command's driver on the deployed instance finds nothing to do."""

from __future__ import annotations

import time
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.conftest import REPO
from cojudge_tests.deploy.support import (
    ACTIVE,
    Daemon,
    comparable,
    deployed_env,
    deployed_instance,
    deployed_tables,
    embedded_tables,
    settled,
    ticks_summary,
)

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]


def _steady(name: str, frame: pl.DataFrame) -> pl.DataFrame:
    """A time limit's ``detail`` in the label audit says how much CPU the killed run had used (1.99 s, 2.00 s):
    it moves with the machine's load between any two runs, so it is compared as the verdict alone."""
    if name == "label_audit" and {"detail", "reexec_verdict"} <= set(frame.columns):
        tle = pl.col("reexec_verdict") == "TLE"
        return frame.with_columns(pl.when(tle).then(pl.lit("<time limit>")).otherwise(pl.col("detail")).alias("detail"))
    return frame


def _wait_until_settled(instance: dg.DagsterInstance, daemon: Daemon, timeout: float) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert daemon.alive(), daemon.tail()
        failed = instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE]))
        assert not failed, f"runs failed: {[r.run_id for r in failed]}\n{daemon.tail()}"
        if instance.get_run_records(limit=1) and settled(instance):
            return
        time.sleep(5)
    raise AssertionError(f"the daemon was not settled after {timeout} s\n{ticks_summary(instance)}\n{daemon.tail()}")


def test_the_daemon_materializes_the_demo_with_the_embedded_tables(tmp_path, monkeypatch, postgres, demo_study):
    database = postgres.create_database("demo_daemon")
    env = {
        "COJUDGE_CORPUS": str(REPO / "data" / "demo"),
        "COJUDGE_JUDGES": str(REPO / "data" / "judges.yaml"),
        "COJUDGE_AUTOMATION_INTERVAL_S": "5",
        # observed when never observed (and by the source watch), then no cron observation during the test: each is
        # a run per source and per judge, which queues with the demo's
        "COJUDGE_OBSERVE_CRON": "0 0 1 1 *",
        **deployed_env(tmp_path / "deployed", database.url, COJUDGE_PROVIDER_LIMITS="*=2"),
    }
    (tmp_path / "deployed" / "files").mkdir(parents=True)
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    home = tmp_path / "home"
    instance = deployed_instance(home, env)
    daemon = Daemon(tmp_path, home, env)
    try:
        daemon.start()
        _wait_until_settled(instance, daemon, timeout=1800)
    finally:
        daemon.stop()
    assert not instance.get_runs(filters=dg.RunsFilter(statuses=ACTIVE))

    lines: list[str] = []
    outcome = run_steps(build_definitions(), instance, {}, echo=lines.append)
    assert outcome.ran == 0, "\n".join([*lines, ticks_summary(instance)])  # the daemon left nothing to do

    embedded = embedded_tables(demo_study.db)
    deployed = deployed_tables(tmp_path / "deployed" / "tables", database.url)
    # the Postgres store makes its drift and import tables with the others; the DuckDB file only at the first
    # drift or import (the demo has neither)
    for name in ("drift_events", "judge_imports", "import_rejects"):
        assert deployed.pop(name).is_empty() and name not in embedded, name
    assert set(embedded) == set(deployed), (sorted(embedded), sorted(deployed))
    assert {"attempts", "label_audit", "mutants", "judge_outputs", "judge_cache", "judge_metrics"} <= set(embedded)
    files: dict[str, Path] = {"here": demo_study.db.parent, "there": tmp_path / "deployed" / "files"}
    for name in sorted(embedded):
        assert len(embedded[name]) == len(deployed[name]), name
        here = [row.replace(str(files["here"]), "<files>") for row in comparable(_steady(name, embedded[name]))]
        there = [row.replace(str(files["there"]), "<files>") for row in comparable(_steady(name, deployed[name]))]
        assert here == there, name
