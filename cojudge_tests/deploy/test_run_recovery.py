"""Runs that recover with no operator (issue 37): the daemon's whole process group is killed (``kill -9 -<pgid>``)
in the middle of a judge partition's run. Its worker is outside that group (cojudge_assets/launcher.py), so it
survives; then the worker is killed too (as an out-of-memory kill or a crash would). The restarted daemon's run
monitoring finds the worker gone and fails the run, the automation requests the partition again, and that run
completes it (no run retry: the instance has none, so the partition is not run twice). Every request has one
answered row in the judge store and in the Delta partition (0 rows lost, none duplicated)."""

from __future__ import annotations

import json
import os
import signal
import time

import dagster as dg
import polars as pl
import pytest
import yaml
from deltalake import DeltaTable

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_assets.launcher import PID_TAG, worker_alive
from cojudge_tests.deploy.support import ACTIVE, UPSTREAM, Daemon, deployed_env, deployed_instance, stored_cache
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(2400)]

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
ATTEMPTS = 30
JUDGE_OUTPUTS = dg.AssetKey("judge_outputs")


def _judge_runs(instance: dg.DagsterInstance) -> list[dg.DagsterRun]:
    return [run for run in instance.get_runs() if JUDGE_OUTPUTS in (run.asset_selection or ())]


def _stored_answers(url: str) -> int:
    try:
        return len(stored_cache(url).filter((pl.col("judge") == "loop") & (pl.col("status") == "ok")))
    except AssertionError:  # no table yet: nothing stored
        return 0


def _wait(what: str, predicate, timeout: float, daemon: Daemon | None = None) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        if predicate():
            return
        if daemon is not None:
            assert daemon.process is None or daemon.alive(), daemon.tail()
        time.sleep(1)
    raise AssertionError(f"not within {timeout} s: {what}\n{daemon.tail() if daemon else ''}")


def test_a_run_whose_worker_died_with_the_daemon_is_failed_requested_again_and_completed(
    tmp_path, monkeypatch, postgres
):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-recovery")
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", ATTEMPTS)
    with LoopbackServer(delay_s=0.5) as server:
        server.script = [("ok", GOOD)]
        judges = write_judges_file(tmp_path / "judges.yaml", server.api_base, concurrency=1)
        database = postgres.create_database("recovery")
        env = deployed_env(
            tmp_path,
            database.url,
            COJUDGE_JUDGES=str(judges),
            COJUDGE_CORPUS=str(corpus),
            COJUDGE_LAYOUT="progsnap2",
            COJUDGE_PROVIDER_LIMITS="*=1",  # one judge run at a time: the killed one holds the provider's place
            COJUDGE_AUTOMATION_INTERVAL_S="5",
        )
        (tmp_path / "files").mkdir()
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        home = tmp_path / "home"
        instance = deployed_instance(home, dict(os.environ))
        # an operator's edit, kept by the merge: monitoring looks every 5 s here (60 s written)
        config = yaml.safe_load((home / "dagster.yaml").read_text())
        config["run_monitoring"]["poll_interval_seconds"] = 5
        (home / "dagster.yaml").write_text(yaml.safe_dump(config))
        instance = dg.DagsterInstance.from_config(str(home))
        assert run_steps(build_definitions(), instance, {}, jobs=UPSTREAM, echo=lambda _: None)
        server.log.clear()

        daemon = Daemon(tmp_path, home, env)
        daemon.start()
        try:
            _wait("a judge run has answers", lambda: len(server.log) >= 6 and _judge_runs(instance), 900, daemon)
            victim = next(r for r in _judge_runs(instance) if r.status == dg.DagsterRunStatus.STARTED)
            pid = int(victim.tags[PID_TAG])
            daemon.kill()  # the daemon's whole process group
            time.sleep(2)
            assert worker_alive(pid, victim.run_id), "the run worker died with the daemon's process group"
            os.killpg(pid, signal.SIGKILL)  # the worker dies too, mid-partition
            _wait("the worker is gone", lambda: not worker_alive(pid, victim.run_id), 60)
            server.settle()
            answered_before = len(server.log)
            assert 0 < answered_before < 3 * ATTEMPTS
            # what the server answered but the judge store never got (on the wire at the kill, or in the writer's
            # batch not yet flushed) is the only thing that may be asked again
            stored_before = _stored_answers(database.url)
            assert stored_before <= answered_before
            assert instance.get_run_by_id(victim.run_id).status == dg.DagsterRunStatus.STARTED  # nobody knows yet

            daemon.start()
            _wait(
                "monitoring failed the killed run",
                lambda: instance.get_run_by_id(victim.run_id).status == dg.DagsterRunStatus.FAILURE,
                600,
                daemon,
            )
            keys = {f"{c}|loop" for c in ("blind", "prefix12k", "nonblind")}

            def complete() -> bool:
                done = instance.fetch_materializations(
                    dg.AssetRecordsFilter(asset_key=JUDGE_OUTPUTS, asset_partitions=list(keys)), limit=100
                ).records
                running = [r for r in _judge_runs(instance) if r.status in ACTIVE]
                return {r.partition_key for r in done} == keys and not running

            _wait("every judge partition materialized", complete, 1200, daemon)
        finally:
            daemon.stop()

    partition = victim.tags.get("dagster/partition")
    again = [
        r for r in _judge_runs(instance) if r.tags.get("dagster/partition") == partition and r.run_id != victim.run_id
    ]
    assert [r.status for r in again] == [dg.DagsterRunStatus.SUCCESS], [r.status for r in again]
    assert not [r for r in instance.get_runs() if r.tags.get("dagster/parent_run_id") == victim.run_id]
    events = [e.message for e in instance.all_logs(victim.run_id) if e.message]
    assert any("is gone" in message for message in events), events[-5:]
    cache = stored_cache(database.url)
    for condition in ("blind", "prefix12k", "nonblind"):
        rows = cache.filter((pl.col("judge") == "loop") & (pl.col("condition") == condition))
        assert len(rows) == ATTEMPTS and rows["attempt_uid"].n_unique() == ATTEMPTS, condition
    assert set(cache["status"]) == {"ok"}
    table = pl.from_arrow(DeltaTable(str(tmp_path / "tables" / "main" / "judge_outputs")).to_pyarrow_table())
    assert isinstance(table, pl.DataFrame)
    loop = table.filter(pl.col("judge") == "loop")
    assert len(loop) == 3 * ATTEMPTS and loop.select("condition", "attempt_uid").n_unique() == 3 * ATTEMPTS
    # every request was answered once, but those answered and never stored when the worker died: nothing else twice
    assert len(server.log) == 3 * ATTEMPTS + (answered_before - stored_before), (answered_before, stored_before)
