"""Provider drift under the deployed profile: the sensor, given the profile's own ``duckdb`` resource
(defs/deployed.py ``DeployedStores``, whose connections are read-only snapshots), records the drift event and the
judge's next epoch in the Postgres store; the next run re-judges the drifted judge only, into the new epoch, and
keeps the old answers beside the new ones (the embedded twin: defs/test_operations.py)."""

from __future__ import annotations

import os

import dagster as dg
import polars as pl
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.automation import observe_sources
from cojudge_assets.driver import run_steps
from cojudge_assets.judges.postgres_store import PostgresStore
from cojudge_assets.settings import libpq_url
from cojudge_tests.defs.test_operations import GOOD, KEYS
from cojudge_tests.deploy.support import deployed_env, deployed_instance
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]


def judges_file(path, drifty: LoopbackServer, steady: LoopbackServer):
    entries = [("drifty", "openai/vendor", drifty, "DRIFTY_KEY"), ("steady", "openai/steady", steady, "STEADY_KEY")]
    lines = ["judges:"]
    for name, model, server, key in entries:
        lines += [f"  - name: {name}", f"    model: {model}", f"    api_base: {server.api_base}"]
        lines += [f"    api_key_env: {key}", "    timeout_s: 5"]
    path.write_text("\n".join(lines) + "\n")
    return path


def store_table(url: str, name: str) -> pl.DataFrame:
    store = PostgresStore(libpq_url(url))
    try:
        table = store.read_table(name)
    finally:
        store.close()
    assert table is not None, name
    return table


def tick(defs: dg.Definitions, instance: dg.DagsterInstance) -> dg.SensorExecutionData:
    sensor = next(s for s in defs.sensors if s.name == "provider_drift")
    resources = {"duckdb": defs.resources["duckdb"], "judges": defs.resources["judges"]}
    # the resource sets up its store per use (a context manager), as it does for the daemon's sensor ticks
    with dg.build_sensor_context(instance=instance, resources=resources, definitions=defs) as context:
        return sensor.evaluate_tick(context)


def test_the_drift_sensor_records_in_postgres_and_the_run_rejudges_the_drifted_judge(tmp_path, monkeypatch, postgres):
    for name, value in KEYS.items():
        monkeypatch.setenv(name, value)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 12)
    with LoopbackServer(model="vendor-model-2025-01") as drifty, LoopbackServer(model="steady-model-7") as steady:
        drifty.script = steady.script = [("ok", GOOD)]
        database = postgres.create_database("drift_deployed")
        env = deployed_env(
            tmp_path,
            database.url,
            COJUDGE_JUDGES=str(judges_file(tmp_path / "judges.yaml", drifty, steady)),
            COJUDGE_CORPUS=str(corpus),
            COJUDGE_LAYOUT="progsnap2",
            COJUDGE_PROVIDER_LIMITS="*=2",
        )
        (tmp_path / "files").mkdir()
        for name, value in env.items():
            monkeypatch.setenv(name, value)
        instance = deployed_instance(tmp_path / "home", dict(os.environ))
        defs = build_definitions()
        assert run_steps(defs, instance, {}, conditions=["blind"], echo=lambda _: None)
        assert (len(drifty.requests), len(steady.requests)) == (12, 12)

        assert not tick(defs, instance).run_requests  # the same models served: nothing recorded
        drifty.model = "vendor-model-2025-06"
        requests = tick(defs, instance).run_requests
        assert [(r.job_name, r.run_key) for r in requests] == [("observe_sources", "drift:drifty:1")]
        events = store_table(database.url, "drift_events")
        assert events.select("judge", "old_identity", "new_identity", "old_epoch", "new_epoch").rows() == [
            ("drifty", "vendor-model-2025-01", "vendor-model-2025-06", 0, 1)
        ]
        assert store_table(database.url, "judge_epochs").filter(pl.col("judge") == "drifty")["epoch"].max() == 1

        # the observation the sensor requested, then the driver: drifty re-judged into epoch 1, steady not at all
        assert observe_sources(build_definitions(), instance, {}).success
        sent = (len(drifty.requests), len(steady.requests))
        outcome = run_steps(build_definitions(), instance, {}, conditions=["blind"], echo=lambda _: None)
        assert outcome, outcome.line()
        assert (len(drifty.requests) - sent[0], len(steady.requests) - sent[1]) == (12, 0)
        assert not tick(build_definitions(), instance).run_requests  # the new answers carry the new identity

    cache = store_table(database.url, "judge_cache").filter(pl.col("judge") == "drifty")
    served = dict(cache.group_by("epoch").agg(pl.col("served_model").unique().sort().str.join(",")).rows())
    assert served == {0: "vendor-model-2025-01", 1: "vendor-model-2025-06"}  # both epochs kept, side by side
