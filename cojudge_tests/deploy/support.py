"""Helpers of the deployed profile's tests: the settings of a deployment over the test's own Postgres, its
instance (dagster.yaml written by ``cojudge deployment config``'s function), and every table of a study read back
from either profile's storage, for comparison."""

from __future__ import annotations

import contextlib
import json
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl

from cojudge_assets.defs.automation import AUTOMATION_SENSOR
from cojudge_assets.deployment import write_instance_config
from cojudge_assets.judges.config import load_judges
from cojudge_assets.judges.postgres_store import STORE_TABLES, PostgresStore
from cojudge_assets.settings import libpq_url, resolve_settings

# what differs between two runs of the same study: when, how long, which run
VOLATILE = ("judged_at", "recorded_at", "started_at", "seen_at", "latency_s", "run_id", "dagster_run")


def deployed_env(tmp: Path, postgres_url: str, **extra: str) -> dict[str, str]:
    return {
        "COJUDGE_PROFILE": "deployed",
        "COJUDGE_POSTGRES_URL": postgres_url,
        "COJUDGE_TABLES_URI": str(tmp / "tables"),
        "COJUDGE_DUCKDB": str(tmp / "files" / "cojudge.duckdb"),
        **extra,
    }


def deployed_instance(home: Path, env: dict[str, str]) -> dg.DagsterInstance:
    """The instance of the deployed profile: its dagster.yaml written from the settings in ``env``."""
    settings = resolve_settings(environ={**os.environ, **env})
    specs = [spec for spec in load_judges(Path(settings.judges_file.value)) if spec.enabled]
    write_instance_config(settings, specs, home)
    return dg.DagsterInstance.from_config(str(home))


def comparable(frame: pl.DataFrame) -> list[str]:
    """A table's rows without its volatile columns, each as canonical JSON, sorted: equal tables compare equal
    whatever their row order and their storage's integer widths."""
    kept = sorted(c for c in frame.columns if c not in VOLATILE and not c.endswith("_at"))
    return sorted(json.dumps(row, default=str, sort_keys=True) for row in frame.select(kept).to_dicts())


def embedded_tables(db: Path) -> dict[str, pl.DataFrame]:
    with duckdb.connect(str(db), read_only=True) as conn:
        names = [r[0] for r in conn.execute("select table_name from information_schema.tables").fetchall()]
        return {name: conn.execute(f'select * from main."{name}"').pl() for name in names}


def deployed_tables(tables_root: Path, postgres_url: str) -> dict[str, pl.DataFrame]:
    from deltalake import DeltaTable

    found: dict[str, pl.DataFrame] = {}
    for folder in sorted((tables_root / "main").iterdir()):
        frame = pl.from_arrow(DeltaTable(str(folder)).to_pyarrow_table())
        assert isinstance(frame, pl.DataFrame)
        found[folder.name] = frame
    store = PostgresStore(libpq_url(postgres_url))
    try:
        for name in STORE_TABLES:
            table = store.read_table(name)
            if table is not None:
                found[name] = table
    finally:
        store.close()
    return found


# the jobs materialized before a test or bench hands the judge partitions to the daemon: afterwards the daemon has
# the judge_outputs partitions to run, and the measurements and report downstream of them
UPSTREAM = (
    "ingest",
    "judge_requests_job",
    "mutants_job",
    "perturbation_outputs_job",
    "dynamics_job",
    "measurement_job",
)

LOCATION = "from cojudge_assets.definitions import build_definitions\n\ndefs = build_definitions()\n"
ACTIVE = [
    dg.DagsterRunStatus.QUEUED,
    dg.DagsterRunStatus.NOT_STARTED,
    dg.DagsterRunStatus.STARTING,
    dg.DagsterRunStatus.STARTED,
]


class Daemon:
    """``dagster-daemon run`` over the package's Definitions, on the deployed instance in ``home`` (started and
    stopped by the test, its process group killed on stop)."""

    def __init__(self, tmp: Path, home: Path, env: dict[str, str], location: str = LOCATION):
        self.location = tmp / "location.py"
        self.location.write_text(location)
        self.env = {**os.environ, **env, "DAGSTER_HOME": str(home)}
        self.log = tmp / "daemon.log"
        self.process: subprocess.Popen | None = None

    def start(self, **extra: str) -> None:
        """Start the daemon, with ``extra`` variables over the environment (for this start only)."""
        with self.log.open("a") as log:
            self.process = subprocess.Popen(
                [str(Path(sys.executable).parent / "dagster-daemon"), "run", "-f", str(self.location)],
                cwd=self.location.parent,
                env={**self.env, **extra},
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
            )

    def alive(self) -> bool:
        return self.process is not None and self.process.poll() is None

    def stop(self, workers: bool = True) -> None:
        """Stop the daemon's process group, and (``workers``) the run workers it launched: the deployed instance's
        launcher starts each in a session of its own (cojudge_assets/launcher.py), which the group's end leaves
        running."""
        if self.process is not None:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(self.process.pid, signal.SIGTERM)
            try:
                self.process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(self.process.pid, signal.SIGKILL)
                self.process.wait()
            self.process = None
        if workers:
            for pid in self.workers():
                with contextlib.suppress(ProcessLookupError):
                    os.killpg(pid, signal.SIGKILL)

    def kill(self) -> None:
        """SIGKILL to the daemon's whole process group, as an operator's ``kill -9 -<pgid>`` (workers untouched)."""
        assert self.process is not None
        os.killpg(self.process.pid, signal.SIGKILL)
        self.process.wait()
        self.process = None

    def workers(self) -> list[int]:
        """The pids of the live run workers of this daemon's instance (``dagster api execute_run`` processes whose
        environment names its DAGSTER_HOME)."""
        home = f"DAGSTER_HOME={self.env['DAGSTER_HOME']}".encode()
        found = []
        for proc in Path("/proc").iterdir():
            if not proc.name.isdigit():
                continue
            with contextlib.suppress(OSError):
                if b"execute_run" in (proc / "cmdline").read_bytes() and home in (proc / "environ").read_bytes().split(
                    b"\0"
                ):
                    found.append(int(proc.name))
        return found

    def tail(self) -> str:
        return self.log.read_text()[-6000:] if self.log.exists() else ""


def active_runs(instance: dg.DagsterInstance) -> list[dg.DagsterRun]:
    return list(instance.get_runs(filters=dg.RunsFilter(statuses=ACTIVE)))


SOURCES = frozenset({dg.AssetKey("contest_corpus"), dg.AssetKey("judges_file")})  # observed, not materialized
SETTLED_TICKS = 2


def last_run_ended(instance: dg.DagsterInstance) -> float:
    """When the newest run ended (or was created, if it has no end): 0.0 when there is none."""
    records = instance.get_run_records(limit=200)  # newest first: the last run to end is among them
    return max((r.end_time or r.create_timestamp.timestamp() for r in records), default=0.0)


def automation_ticks(instance: dg.DagsterInstance, after: float) -> list:
    """The automation sensor's completed ticks that started after ``after``, newest first."""
    ticks: list = []
    for state in instance.all_instigator_state():
        if state.instigator_name == AUTOMATION_SENSOR:
            ticks += instance.get_ticks(state.instigator_origin_id, state.selector_id, after=after)
    return sorted((t for t in ticks if t.is_completed), key=lambda t: t.timestamp, reverse=True)


def settled(instance: dg.DagsterInstance, ticks: int = SETTLED_TICKS) -> bool:
    """Dagster's evaluator has nothing more to materialize: no run is queued or running, and the automation sensor
    has completed at least ``ticks`` evaluations that started after the last run ended, none of them requesting a
    materialization (a source's observation, which its cron starts, aside; a failed evaluation does not count).
    Counted in the sensor's own ticks, not in seconds: on a loaded machine one evaluation can take longer than
    several intervals."""
    if active_runs(instance):
        return False
    seen = automation_ticks(instance, after=last_run_ended(instance))
    evaluated = [t for t in seen if not t.is_failure]
    return len(evaluated) >= ticks and not any(t.requested_asset_keys - SOURCES for t in evaluated)


def ticks_summary(instance: dg.DagsterInstance, limit: int = 8) -> str:
    """The sensor's newest ticks, for a failure's message."""
    lines = []
    for tick in automation_ticks(instance, after=0.0)[:limit]:
        requested = sorted(key.to_user_string() for key in tick.requested_asset_keys)
        error = f" error {tick.error.message[:200]}" if tick.error else ""
        lines.append(f"tick {tick.tick_id} at {tick.timestamp:.0f}: {tick.status.value} requested {requested}{error}")
    return "\n".join(lines)


def wait_idle(instance: dg.DagsterInstance, timeout: float) -> None:
    """Until no run is queued or running (the runs the daemon launched end on their own)."""
    deadline = time.time() + timeout
    while active_runs(instance) and time.time() < deadline:
        time.sleep(2)


def cancel_waiting(instance: dg.DagsterInstance) -> None:
    """Cancel the runs a stopped daemon queued but never started: they will not start now, so that nothing waits
    for them."""
    waiting = [dg.DagsterRunStatus.QUEUED, dg.DagsterRunStatus.NOT_STARTED]
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=waiting)):
        instance.report_run_canceled(run, message="the test stopped the daemon before the run started")


def stored_cache(url: str) -> pl.DataFrame:
    """The deployment's judge cache, whole (a test's few rows), from its Postgres database."""
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    store = PostgresStore(libpq_url(url))
    try:
        cache = store.read_table("judge_cache")
    finally:
        store.close()
    assert cache is not None, "no judge cache in the deployment's database"
    return cache
