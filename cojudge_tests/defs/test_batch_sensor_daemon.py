"""A batch that finishes while no one watches is collected by the daemon: ``cojudge materialize`` returns with the
judge's batch still at the provider (exit 5, BATCHES PENDING), then ``dagster-daemon run`` with the
``pending_batches`` sensor (defs/judging/sensors.py, started as the runbook says) launches the runs that poll it;
while the loopback provider holds the batch ``in_progress`` those runs end pending and submit nothing, and once the
test lets the batch complete the next run downloads it and materializes the partition: every answer stored once,
one create in all.

The location the daemon loads holds the package's Definitions with that sensor alone: the automation sensor would
also request the partition (it is missing), so this test shows the batch sensor does it by itself. The sensor looks
every 2 s here (COJUDGE_BATCH_SENSOR_INTERVAL_S; 600 by default), and the instance starts queued runs every second,
so the test waits on runs, never on idle minutes. Slow: each run the daemon launches is a process of its own."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import pytest

from cojudge_assets.defs.judging.sensors import BATCH_SENSOR
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import Daemon, cancel_waiting, wait_idle
from cojudge_tests.judges.batch_loopback import BatchLoopbackServer
from cojudge_tests.judges.fixtures import cli, write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.test_batch import answer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

KEY = "sk-batch-sensor-daemon-never-stored"
PARTITION = "blind|loop"
SENSOR_RUNS = dg.RunsFilter(tags={"dagster/sensor_name": BATCH_SENSOR})
LOCATION = f'''
import dagster as dg

from cojudge_assets.definitions import build_definitions


def batch_sensor_alone() -> dg.Definitions:
    full = build_definitions()
    kept = ("assets", "asset_checks", "jobs", "schedules", "resources", "executor", "loggers")
    sensors = [sensor for sensor in full.sensors or [] if sensor.name == "{BATCH_SENSOR}"]
    return dg.Definitions(sensors=sensors, **{{part: getattr(full, part) for part in kept}})


defs = batch_sensor_alone()
'''


def sensor_runs(instance: dg.DagsterInstance) -> list[dg.DagsterRun]:
    return list(instance.get_runs(filters=SENSOR_RUNS))


def wait_for(what: str, done, daemon: Daemon, timeout: float = 900) -> None:
    deadline = time.time() + timeout
    while time.time() < deadline:
        assert daemon.alive(), daemon.tail()
        if done():
            return
        time.sleep(1)
    raise AssertionError(f"{what}: not after {timeout} s\n{daemon.tail()}")


def test_the_pending_batches_sensor_completes_a_pending_partition_under_the_daemon(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    home = tmp_path / "home"
    home.mkdir()
    (home / "dagster.yaml").write_text(
        "telemetry:\n  enabled: false\n"
        "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
        "  config:\n    max_concurrent_runs: 1\n    dequeue_interval_seconds: 1\n"
    )
    db = tmp_path / "data" / "cojudge.duckdb"
    db.parent.mkdir()
    with BatchLoopbackServer(answer=answer) as server:
        server.hold = True  # the provider keeps the batch in_progress until the test lets it complete
        judges = write_judges_file(
            tmp_path / "judges.yaml",
            server.api_base,
            price="{input_usd_per_mtok: 2.0, output_usd_per_mtok: 8.0}",
            mode="batch",
            batch="{wait: false, poll_initial_s: 0.01, poll_max_s: 0.02}",
        )
        env = {
            "COJUDGE_DUCKDB": str(db),
            "COJUDGE_JUDGES": str(judges),
            "COJUDGE_CORPUS": str(corpus),
            "COJUDGE_LAYOUT": "progsnap2",
            "COJUDGE_BATCH_SENSOR_INTERVAL_S": "2",
            "LOOPBACK_KEY": KEY,
        }
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        instance = dg.DagsterInstance.from_config(str(home))
        from cojudge_assets.definitions import build_definitions

        # the requests, made by local steps (nothing sent); then the command judges the partition and returns
        assert run_steps(build_definitions(), instance, {}, jobs=("ingest", "judge_requests_job"), echo=print)
        args = ["materialize", "--select", "judge_outputs_job", "--judge", "loop", "--condition", "blind"]
        returned = cli(args, db=db, judges=judges, home=home, extra_env=env)
        assert returned.returncode == 5, returned.stdout + returned.stderr
        assert returned.stdout.strip().splitlines()[-1].startswith("BATCHES PENDING")
        assert server.creates == 1 and server.lines == 6 and server.downloads == []

        daemon = Daemon(tmp_path, home, env, location=LOCATION)
        started = subprocess.run(
            [str(Path(sys.executable).parent / "dagster"), "sensor", "start", BATCH_SENSOR, "-f", str(daemon.location)],
            cwd=tmp_path,
            env=daemon.env,
            capture_output=True,
            text=True,
            timeout=600,
        )
        assert started.returncode == 0, started.stdout + started.stderr
        daemon.start()
        try:
            # held: the sensor's run polls the batch, finds it in progress, ends pending; nothing is sent again
            wait_for(
                "a sensor run that ended with the batch in progress",
                lambda: any(r.status == dg.DagsterRunStatus.FAILURE for r in sensor_runs(instance)),
                daemon,
            )
            assert instance.get_materialized_partitions(dg.AssetKey("judge_outputs")) == set()
            assert server.creates == 1 and server.downloads == []
            with duckdb.connect(str(db), read_only=True) as con:
                status = con.sql("select status from main.judge_batches").fetchall()
            assert status == [("in_progress",)]

            server.hold = False  # the provider completes the batch: the next sensor run collects it
            wait_for(
                "judge_outputs materialized by a sensor run",
                lambda: PARTITION in instance.get_materialized_partitions(dg.AssetKey("judge_outputs")),
                daemon,
            )
            wait_idle(instance, timeout=300)
        finally:
            daemon.stop()
            cancel_waiting(instance)

    runs = sensor_runs(instance)
    done = [r for r in runs if r.status == dg.DagsterRunStatus.SUCCESS]
    assert len(done) == 1 and done[0].tags["cojudge/batch"] == "collect"
    assert done[0].tags["dagster/partition"] == PARTITION
    record = instance.fetch_materializations(dg.AssetKey("judge_outputs"), limit=10).records
    assert [r.run_id for r in record] == [done[0].run_id]  # materialized once, by the sensor's run
    meta = record[0].asset_materialization.metadata
    assert meta["batch_state"].value == "completed" and meta["batches_submitted"].value == 0
    assert meta["valid_rows"].value == 6 and meta["batches_collected"].value == 1
    assert server.creates == 1 and server.uploads == 1  # never submitted again
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.sql("select attempt_uid, status, batch_id from main.judge_outputs").fetchall()
        cached = con.sql("select count(*), count(distinct attempt_uid) from main.judge_cache").fetchone()
        ledger = con.sql("select status from main.judge_batches").fetchall()
    assert len(rows) == 6 and {s for _, s, _ in rows} == {"ok"} and len({b for _, _, b in rows}) == 1
    assert cached == (6, 6) and ledger == [("collected",)]  # every answer stored once
