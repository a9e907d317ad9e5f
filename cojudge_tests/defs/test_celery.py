"""A multi-worker engine, exercised for real: the label audit's shards run by two Celery workers (dagster-celery on
a Redis broker, the instance on Postgres, as workers on several machines would share them), with the executor
chosen by configuration only (``COJUDGE_EXECUTOR=celery``); the results equal the single-step audit. A broker
that is not set or not reachable is refused naming the setting, never waited for."""

from __future__ import annotations

import contextlib
import os
import pickle
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import dagster as dg
import polars as pl
import pytest
import yaml
from polars.testing import assert_frame_equal

from cojudge_assets.core.ingest.kattis import read_problem
from cojudge_assets.core.ingest.label_audit import audit_labels
from cojudge_assets.core.shards import BUCKET_COLUMN, bucket_keys
from cojudge_assets.executors import (
    CELERY_BROKER_VARIABLE,
    BrokerError,
    celery_settings,
    check_broker,
    worker_config,
)
from cojudge_tests.defs import celery_code
from cojudge_tests.defs.test_shards import demo_subset, untimed
from cojudge_tests.services import free_port

REPO = Path(__file__).resolve().parents[2]
BIN = Path(sys.executable).parent
SHARDS = 4
WORKERS = ("w1", "w2")
WORKER_START_TIMEOUT_S = 180


def test_a_missing_broker_is_refused_naming_the_setting(monkeypatch, tmp_path):
    with pytest.raises(BrokerError, match=CELERY_BROKER_VARIABLE):
        celery_settings({})
    assert celery_settings({CELERY_BROKER_VARIABLE: "redis://h:1/0"}) == {
        "broker": "redis://h:1/0",
        "backend": "redis://h:1/0",
    }
    # the Definitions refuse to load with the executor but no broker
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    monkeypatch.setenv("COJUDGE_EXECUTOR", "celery")
    monkeypatch.delenv(CELERY_BROKER_VARIABLE, raising=False)
    from cojudge_assets.definitions import build_definitions

    with pytest.raises(BrokerError, match=CELERY_BROKER_VARIABLE):
        build_definitions()


def test_an_unreachable_broker_fails_the_run_fast(monkeypatch, tmp_path):
    """Nothing listens at the broker's port: the run is refused when its executor starts, naming the setting,
    within seconds, before any step is sent."""
    broker = f"redis://127.0.0.1:{free_port()}/0"
    started = time.perf_counter()
    with pytest.raises(BrokerError, match=CELERY_BROKER_VARIABLE):
        check_broker(broker)
    assert time.perf_counter() - started < 15
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    monkeypatch.setenv("COJUDGE_EXECUTOR", "celery")
    monkeypatch.setenv(CELERY_BROKER_VARIABLE, broker)
    monkeypatch.setenv(celery_code.STORE_VARIABLE, str(tmp_path / "store"))
    (tmp_path / "home").mkdir()
    with dg.instance_for_test(temp_dir=str(tmp_path / "home")) as instance:
        started = time.perf_counter()
        with pytest.raises(BrokerError, match=f"{CELERY_BROKER_VARIABLE}={broker}"):
            dg.execute_job(
                dg.reconstructable(celery_code.label_audit_shards),
                instance=instance,
                tags={"dagster/partition": "0of4"},
                raise_on_error=False,
            )
        assert time.perf_counter() - started < 60  # refused at the run's start: it never waited for a worker


def test_a_refused_broker_s_password_stays_out_of_the_message():
    with pytest.raises(BrokerError, match=CELERY_BROKER_VARIABLE) as refused:
        check_broker(f"redis://:s3cret-word@127.0.0.1:{free_port()}/0")
    assert "s3cret-word" not in str(refused.value) and ":***@127.0.0.1" in str(refused.value)


def _process_groups_alive(groups: set[int]) -> list[int]:
    """The pids of live processes in these process groups (from /proc: no signal sent)."""
    alive = []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        with contextlib.suppress(OSError, IndexError, ValueError):
            fields = stat.read_text().rsplit(")", 1)[1].split()
            if fields[0] != "Z" and int(fields[2]) in groups:
                alive.append(int(stat.parent.name))
    return alive


@contextlib.contextmanager
def celery_workers(env: dict[str, str], folder: Path) -> Iterator[dict[str, Path]]:
    """Two workers (``dagster-celery worker start``, one task at a time each, in the worker's own process), each
    in a process group of its own; both stopped on exit and checked gone (no stray process)."""
    config = folder / "celery.yaml"
    config.write_text(yaml.safe_dump(worker_config(env)))
    logs, processes = {}, []
    try:
        for name in WORKERS:
            logs[name] = folder / f"{name}.log"
            with logs[name].open("w") as log:
                processes.append(
                    subprocess.Popen(
                        [str(BIN / "dagster-celery"), "worker", "start", "-A", "dagster_celery.app"]
                        + ["-y", str(config), "-n", name, "--", "--pool=solo"],
                        cwd=REPO,
                        env=env,
                        stdout=log,
                        stderr=subprocess.STDOUT,
                        start_new_session=True,
                    )
                )
        deadline = time.time() + WORKER_START_TIMEOUT_S
        while not all(" ready." in logs[n].read_text() for n in WORKERS):
            assert all(p.poll() is None for p in processes), {n: logs[n].read_text()[-2000:] for n in WORKERS}
            assert time.time() < deadline, {n: logs[n].read_text()[-2000:] for n in WORKERS}
            time.sleep(0.5)
        yield logs
    finally:
        groups = {p.pid for p in processes}  # each the leader of its session and group
        for pid in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGTERM)
        deadline = time.time() + 60
        while _process_groups_alive(groups) and time.time() < deadline:
            time.sleep(0.2)
        for pid in groups:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(pid, signal.SIGKILL)
        for p in processes:
            p.wait(timeout=30)


def test_two_celery_workers_share_the_label_audit_shards(tmp_path, monkeypatch, postgres, redis, judge):
    corpus = demo_subset(tmp_path)
    database = postgres.create_database("celery_shards")
    home = tmp_path / "home"
    home.mkdir()
    storage = {
        "username": database.user,
        "hostname": database.host,
        "port": database.port,
        "db_name": database.database,
        "scheme": "postgresql+psycopg2",  # SQLAlchemy 2.1 would pick psycopg 3, which is not installed
    }
    (home / "dagster.yaml").write_text(yaml.safe_dump({"storage": {"postgres": {"postgres_db": storage}}}))
    env = {
        "DAGSTER_HOME": str(home),
        "COJUDGE_EXECUTOR": "celery",
        CELERY_BROKER_VARIABLE: redis.url,
        "COJUDGE_SHARDS": str(SHARDS),
        "COJUDGE_CORPUS": str(corpus),
        "COJUDGE_LAYOUT": "pages",
        "COJUDGE_DUCKDB": str(tmp_path / "unused.duckdb"),
        # absolute: Dagster's defs-folder loader changes the working folder for a moment, and the runs here
        # build their Definitions in threads of one process
        "COJUDGE_JUDGES": str(REPO / "data" / "judges.yaml"),
        celery_code.STORE_VARIABLE: str(tmp_path / "store"),
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    worker_env = {
        **os.environ,
        "PATH": f"{BIN}{os.pathsep}{os.environ.get('PATH', '')}",  # the workers start `celery` by name
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    before = {p.name for p in Path("/proc").glob("[0-9]*")}
    with celery_workers(worker_env, tmp_path) as logs, dg.DagsterInstance.get() as instance:
        assert type(instance.run_storage).__name__ == "PostgresRunStorage"
        ingest = dg.execute_job(dg.reconstructable(celery_code.ingest), instance=instance)
        assert ingest.success  # through the workers too: they read the corpus and write the store
        results: dict[str, dg.ExecutionResult] = {}

        def run(key: str) -> None:
            with dg.DagsterInstance.get() as own:  # one instance per thread, on the same Postgres
                results[key] = dg.execute_job(
                    dg.reconstructable(celery_code.label_audit_shards),
                    instance=own,
                    tags={"dagster/partition": key},
                    raise_on_error=False,
                )

        # the four runs start together; a shard's step takes seconds (the worker builds the Definitions, runs the
        # audit, writes its events to Postgres), and Redis hands a queued task to the worker that has waited
        # longest, so while one worker is busy the other takes the next shard
        threads = [threading.Thread(target=run, args=(key,)) for key in bucket_keys(SHARDS)]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=900)
        assert all(result.success for result in results.values()) and len(results) == SHARDS, {
            k: [str(e.message) for e in r.all_events if e.is_failure] for k, r in results.items()
        }
        workers, pids = {}, set()
        for key, result in results.items():
            for record in instance.all_logs(result.run_id):
                event = record.dagster_event
                if event is None:
                    continue
                if event.event_type == dg.DagsterEventType.ENGINE_EVENT and event.engine_event_data is not None:
                    found = event.engine_event_data.metadata.get("Celery worker")
                    if found is not None:
                        workers[key] = str(found.value)
                if event.event_type == dg.DagsterEventType.STEP_SUCCESS:
                    pids.add(event.pid)
        assert set(workers) == set(bucket_keys(SHARDS))
        assert {name.split("@")[0] for name in workers.values()} == set(WORKERS), workers  # both workers ran shards
        assert len(pids) >= 2 and os.getpid() not in pids, pids  # in the workers' processes, not this one
        for name in WORKERS:
            assert "execute_plan" in logs[name].read_text()

    shards = [pickle.loads((tmp_path / "store" / "label_audit" / key).read_bytes()) for key in bucket_keys(SHARDS)]
    sharded = pl.concat(shards).drop(BUCKET_COLUMN).sort("attempt_uid")
    attempts = pickle.loads((tmp_path / "store" / "attempts").read_bytes())
    packages = {p.name: read_problem(p) for p in (corpus / "problems").iterdir()}
    unsharded = audit_labels(attempts, packages, judge)  # the single-step audit
    assert len(unsharded) > 10
    assert_frame_equal(untimed(sharded), untimed(unsharded))
    # nothing left behind: no process this test started is alive (the services stop with their fixtures); its own
    # are those whose environment names its DAGSTER_HOME, since a test on another worker (pytest-xdist) may be
    # starting celery processes of its own meanwhile
    own = f"DAGSTER_HOME={home}".encode()
    stray = []
    for pid in {p.name for p in Path("/proc").glob("[0-9]*")} - before:
        with contextlib.suppress(OSError):  # a process that ended meanwhile
            proc = Path("/proc") / pid
            if b"celery" in (proc / "cmdline").read_bytes() and own in (proc / "environ").read_bytes().split(b"\0"):
                stray.append(pid)
    assert stray == []
