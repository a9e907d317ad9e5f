"""A deployment keeps the graph fresh by itself: ``dagster-daemon run`` on a temporary instance, with the automation
sensor the Definitions hold (defs/automation.py), brings every asset a judges-file change, a data fix, a provider
drift and a code change affect back to fresh with no cojudge command, each asset partition materialized once per
change (a data fix sends no judge request); afterwards the command's driver finds nothing to do and sends nothing.
Slow (CI runs it): the daemon starts one process per run, one run at a time (one DuckDB writer); the source watch
(defs/operations/sensors.py) observes an edited source at its next tick, and the automation sensor evaluates the
conditions every 5 s here (COJUDGE_AUTOMATION_INTERVAL_S, 30 s by default, the interval of both), so each level
of the graph waits for a tick. Until issue 33 the test waited for the observation cron's minute after each edit
and 30 s after each start."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from collections import Counter
from collections.abc import Iterable
from datetime import UTC, datetime
from pathlib import Path

import dagster as dg
import pytest

from cojudge_assets.defs.automation import materializable_keys
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import (
    Daemon,
    automation_ticks,
    cancel_waiting,
    settled,
    ticks_summary,
    wait_idle,
)
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

pytestmark = [
    pytest.mark.slow,
    pytest.mark.timeout(2400),  # a hang fails within the CI budget
]

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
FIX_VARIABLE = "COJUDGE_TEST_ATTEMPTS_FIX"
CONDITIONS = ("blind", "prefix12k", "nonblind")
QUIET_CRON = "0 0 1 1 *"  # the observation cron: once a year
TICK_S = 5  # the automation sensor's interval in this test (COJUDGE_AUTOMATION_INTERVAL_S; 30 s by default)

# The code location the daemon loads: the package's Definitions, with a new code version of ``attempts`` when the
# variable is set (a fix of how attempts are read, as an engineer would bump it).
LOCATION = f'''
import os

import dagster as dg

from cojudge_assets.defs.ingest import assets as ingest_assets
from cojudge_assets.definitions import build_definitions

if os.environ.get("{FIX_VARIABLE}"):
    ingest_assets.read_contest = ingest_assets.read_contest.map_asset_specs(
        lambda spec: spec.replace_attributes(code_version=spec.code_version + "-fixed")
        if spec.key == dg.AssetKey("attempts")
        else spec
    )

defs = build_definitions()
'''


def location_defs(path: Path) -> dg.Definitions:
    """The Definitions of the location file, as the daemon loads them (with this process's environment)."""
    namespace: dict = {}
    exec(compile(path.read_text(), str(path), "exec"), namespace)  # noqa: S102 - the test's own file
    return namespace["defs"]


class Deployment:
    """A temporary instance and a daemon over the location file (started and stopped by the test)."""

    def __init__(self, tmp: Path, env: dict):
        self.home = tmp / "home"
        self.home.mkdir()
        (self.home / "dagster.yaml").write_text(
            "telemetry:\n  enabled: false\n"
            "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
            "  config:\n    max_concurrent_runs: 1\n    dequeue_interval_seconds: 1\n"
        )
        self.daemon = Daemon(tmp, self.home, env, location=LOCATION)
        self.location, self.env = self.daemon.location, self.daemon.env
        self.instance = dg.DagsterInstance.from_config(str(self.home))

    def start(self, **extra: str) -> None:
        self.daemon.start(**extra)

    def stop(self) -> None:
        self.daemon.stop()
        cancel_waiting(self.instance)
        wait_idle(self.instance, timeout=120)

    def command(self, *args: str, **extra: str) -> subprocess.CompletedProcess:
        return subprocess.run(
            [str(Path(sys.executable).parent / "dagster"), *args, "-f", str(self.location)],
            cwd=self.location.parent,
            env={**self.env, **extra},
            capture_output=True,
            text=True,
            timeout=300,
        )

    def failed_since(self, t0: float) -> list:
        after = datetime.fromtimestamp(t0, tz=UTC)
        return list(
            self.instance.get_runs(filters=dg.RunsFilter(statuses=[dg.DagsterRunStatus.FAILURE], created_after=after))
        )

    def materialized_since(self, t0: float, asset: str, partition: str | None = None) -> bool:
        records = self.instance.fetch_materializations(
            dg.AssetRecordsFilter(
                asset_key=dg.AssetKey(asset), asset_partitions=[partition] if partition else None, after_timestamp=t0
            ),
            limit=1,
        ).records
        return bool(records)

    def materialized_twice(self, t0: float, keys: Iterable[dg.AssetKey]) -> dict[tuple[str, str | None], int]:
        """The asset partitions materialized more than once after ``t0``, with their counts."""
        counts: Counter[tuple[str, str | None]] = Counter()
        for key in keys:
            records = self.instance.fetch_materializations(
                dg.AssetRecordsFilter(asset_key=key, after_timestamp=t0), limit=10_000
            ).records
            counts.update((key.to_user_string(), r.partition_key) for r in records)
        return {pair: n for pair, n in counts.items() if n > 1}

    def wait_started(self, timeout: float = 600) -> None:
        """Until the automation sensor completed an evaluation after the daemon started (its cursor starts there)."""
        started = time.time()
        deadline = started + timeout
        while time.time() < deadline:
            assert self.daemon.alive(), self.daemon.tail()
            if automation_ticks(self.instance, after=started):
                return
            time.sleep(2)
        raise AssertionError(f"no evaluation {timeout} s after the start\n{self.daemon.tail()}")

    def wait_fresh(self, t0: float, expected: set[tuple[str, str | None]], timeout: float = 2400) -> None:
        """Until every expected asset partition was materialized after ``t0`` and the daemon is settled (no run
        active; the automation sensor's last ticks, all after the last run ended, requested no materialization:
        deploy/support.py ``settled``)."""
        deadline = time.time() + timeout
        while time.time() < deadline:
            assert self.daemon.alive(), self.daemon.tail()
            failed = self.failed_since(t0)
            assert not failed, f"runs failed: {[r.run_id for r in failed]}\n{self.daemon.tail()}"
            done = all(self.materialized_since(t0, asset, part) for asset, part in expected)
            if done and settled(self.instance):
                return
            time.sleep(5)
        missing = [pair for pair in expected if not self.materialized_since(t0, *pair)]
        ticks = ticks_summary(self.instance)
        raise AssertionError(f"not fresh after {timeout} s: {missing}\n{ticks}\n{self.daemon.tail()}")


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", "sk-daemon-test")
    with LoopbackServer() as s:
        s.script = [("ok", GOOD)]
        yield s


def nothing_to_do(deployment: Deployment, defs: dg.Definitions) -> None:
    """(c): the command's driver, on the same instance, runs nothing and sends nothing."""
    lines: list[str] = []
    outcome = run_steps(defs, deployment.instance, {}, echo=lines.append)
    assert outcome.ran == 0 and outcome.rounds == [], lines
    assert outcome.line().startswith("nothing changed: all ") and outcome.line().endswith("0 requests sent to judges")


def test_the_daemon_keeps_the_graph_fresh_after_each_kind_of_change(tmp_path, monkeypatch, server):
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    judges = write_judges_file(tmp_path / "judges.yaml", server.api_base)
    env = {
        "COJUDGE_DUCKDB": str(tmp_path / "data" / "cojudge.duckdb"),
        "COJUDGE_JUDGES": str(judges),
        "COJUDGE_CORPUS": str(corpus),
        "COJUDGE_LAYOUT": "progsnap2",
        "COJUDGE_AUTOMATION_INTERVAL_S": str(TICK_S),
        # the source watch observes the edits: no cron observation (a run per source and per judge, each a process
        # in the one run slot) in the test's few minutes
        "COJUDGE_OBSERVE_CRON": QUIET_CRON,
        # one bucket of the sandboxed steps: a run each, not four (cojudge_tests/defs/test_shards.py covers buckets)
        "COJUDGE_SHARDS": "1",
    }
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    (tmp_path / "data").mkdir()
    from cojudge_assets.defs.ingest import assets as ingest_assets

    # the location file patches the module when the fix variable is set: restored after the test
    monkeypatch.setattr(ingest_assets, "read_contest", ingest_assets.read_contest)
    deployment = Deployment(tmp_path, dict(os.environ))
    defs = location_defs(deployment.location)
    # the starting point: everything materialized (by the command's driver, in this process: fast)
    assert run_steps(defs, deployment.instance, {}, echo=lambda line: None)
    nothing_to_do(deployment, defs)
    loop = {("judge_outputs", f"{c}|loop") for c in CONDITIONS} | {("perturbation_outputs", "loop")}
    try:
        deployment.start()
        deployment.wait_started()
        keys = materializable_keys(defs)

        # 1. the judges file gives the loop judge another token budget: its partitions are re-judged
        t0 = time.time()
        sent = len(server.requests)
        write_judges_file(judges, server.api_base, max_tokens=999)
        deployment.wait_fresh(t0, loop)
        assert len(server.requests) - sent >= 6 * 3  # the loop judge's requests, under every condition
        assert not deployment.materialized_twice(t0, keys)  # each step once for the change
        deployment.stop()
        nothing_to_do(deployment, location_defs(deployment.location))

        # 2. a data fix: a verdict corrected in the corpus re-reads it; the label-free requests did not move, so
        # no judge is asked again, and no reader runs before its last moving input (issue 37: four ran twice)
        deployment.start()
        t0 = time.time()
        sent = len(server.requests)
        table = corpus / "progsnap2" / "MainTable.csv"
        events = table.read_text().splitlines()
        table.write_text("\n".join([*events[:2], events[2].replace(",false,", ",true,"), *events[3:]]) + "\n")
        deployment.wait_fresh(t0, {("attempts", None), ("predictions", None), ("report", None)})
        assert not any(deployment.materialized_since(t0, "judge_outputs", f"{c}|loop") for c in CONDITIONS)
        assert len(server.requests) == sent  # not one judge request
        assert not deployment.materialized_twice(t0, keys)
        deployment.stop()
        nothing_to_do(deployment, location_defs(deployment.location))

        # 3. a provider drift: the drift sensor (turned on) records it and observes the judges file; the loop
        # judge's partitions are re-judged into the new epoch, and what reads the answers follows
        server.model = "loopback-model-2"
        deployment.start()
        t0 = time.time()
        started = deployment.command("sensor", "start", "provider_drift")
        assert started.returncode == 0, started.stdout + started.stderr
        deployment.wait_fresh(t0, loop | {("predictions", None), ("report", None)})
        assert not deployment.materialized_twice(t0, keys)
        deployment.stop()
        nothing_to_do(deployment, location_defs(deployment.location))

        # 4. a code change: a new code version of attempts (the daemon restarted on the new code)
        monkeypatch.setenv(FIX_VARIABLE, "1")
        t0 = time.time()
        deployment.start(**{FIX_VARIABLE: "1"})
        deployment.wait_fresh(t0, {("attempts", None)})
        assert not any(deployment.materialized_since(t0, "judge_outputs", f"{c}|loop") for c in CONDITIONS)
        assert not deployment.materialized_twice(t0, keys)
        deployment.stop()
        nothing_to_do(deployment, location_defs(deployment.location))
    finally:
        deployment.stop()
