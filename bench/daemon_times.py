"""How long a deployment takes to bring the demo study to fresh, by itself: the first full graph, a judges-file edit,
and a data fix, each timed from its cause to the end of the last run it caused, with the wait it spent before the
change was observed (by the source watch, or by the observation cron when the watch is off).

Usage: nice -n 10 .venv/bin/python bench/daemon_times.py [--watch off] [--cache DIR] [--timeout 5400]

The deployed profile on a Postgres cluster of the script's own (cojudge_tests/services.py), the demo corpus copied to
a temporary folder, the repository's judges file copied beside it, dagster.yaml written by ``cojudge deployment
config``'s function (``COJUDGE_PROVIDER_LIMITS='*=2'``), and ``dagster-daemon run`` with the deployed defaults: the
automation sensor and the source watch every 30 s (``COJUDGE_AUTOMATION_INTERVAL_S``), the observation cron every 5
minutes (``COJUDGE_OBSERVE_CRON``), 4 shards. No cojudge command runs: the daemon does everything.

1. **first full graph**: from the daemon's start (empty instance, empty tables) to the end of the last run, once
   the automation sensor has evaluated twice after it and requested nothing (deploy/support.py ``settled``);
2. **an edit to fresh**: ``static-rubric`` gets ``max_tokens: 777`` in the judges file (its next epoch: its three
   ``judge_outputs`` partitions, its ``perturbation_outputs`` partition and their readers run again);
3. **a data fix to fresh**: one page's Result corrected from Accepted to Wrong Answer (the corpus's data version
   moves: the ingest and what its data moves; no judge request, since requests carry no label).

The observation wait of a change is from the change to the creation of the first observation run after it (the
source watch's job ``observe_sources``, or the cron's run of the source assets): ``source_watch`` or the automation
sensor's cron (``cojudge_automation``) made it. A phase is fresh when the last run that is not an observation ended.
``--watch off`` stops the source watch after the first graph, so the changes wait for the cron, as an operator who
stops it on a corpus of millions of files would see.

The sandbox's result cache (``COJUDGE_CACHE``) is a new, empty folder unless ``--cache`` names one: with an empty
cache the first graph compiles and runs every program, as on a fresh machine.
"""

from __future__ import annotations

import argparse
import os
import shutil
import subprocess
import sys
import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

from cojudge_assets.defs.automation import OBSERVE_JOB  # noqa: E402
from cojudge_tests.conftest import REPO  # noqa: E402
from cojudge_tests.deploy.support import (  # noqa: E402
    SOURCES,
    Daemon,
    active_runs,
    deployed_env,
    deployed_instance,
    settled,
)
from cojudge_tests.services import postgres_cluster  # noqa: E402

EDITED_JUDGE = "static-rubric"
SETTLE_POLL_S = 5


@dataclass(frozen=True)
class Phase:
    name: str
    seconds: float  # from the cause to the end of the last run it caused (observations aside)
    observed_after: float | None  # from the cause to the creation of the first observation run after it
    observed_by: str
    runs: int  # observations aside
    materializations: int
    failed: int


def is_observation(record: dg.RunRecord) -> bool:
    """A run that observes the sources only: the job the source watch launches, or the automation's cron
    observation (a run of the source assets alone)."""
    run = record.dagster_run
    return run.job_name == OBSERVE_JOB or bool(run.asset_selection and run.asset_selection <= SOURCES)


def _utc(timestamp: float) -> datetime:
    return datetime.fromtimestamp(timestamp, tz=UTC)


def wait_settled(instance: dg.DagsterInstance, daemon: Daemon, t0: float, timeout: float) -> None:
    """Until a run was created after ``t0``, none is active, and the automation sensor evaluated twice since the
    last run ended without requesting anything."""
    deadline = time.time() + timeout
    while time.time() < deadline:
        if not daemon.alive():
            raise SystemExit(f"the daemon stopped:\n{daemon.tail()}")
        created = instance.get_run_records(filters=dg.RunsFilter(created_after=_utc(t0)), limit=1)
        if created and not active_runs(instance) and settled(instance):
            return
        time.sleep(SETTLE_POLL_S)
    raise SystemExit(f"not settled {timeout} s after the cause\n{daemon.tail()}")


def measure(instance: dg.DagsterInstance, name: str, t0: float) -> Phase:
    """The phase that began at ``t0``: fresh when the last run that was not an observation ended (the cron's
    observations go on every 5 minutes, and are not part of the change's work)."""
    records = instance.get_run_records(filters=dg.RunsFilter(created_after=_utc(t0)), limit=10_000)
    work = [r for r in records if not is_observation(r)]
    ended = [r.end_time for r in work if r.end_time]
    observations = sorted((r for r in records if is_observation(r)), key=lambda r: r.create_timestamp)
    first = observations[0] if observations else None
    materializations = 0
    for record in work:
        events = instance.all_logs(record.dagster_run.run_id, of_type=dg.DagsterEventType.ASSET_MATERIALIZATION)
        materializations += len(list(events))
    return Phase(
        name=name,
        seconds=max(ended) - t0 if ended else float("nan"),
        observed_after=first.create_timestamp.timestamp() - t0 if first else None,
        observed_by=first.dagster_run.tags.get("dagster/sensor_name", "?") if first else "none",
        runs=len(work),
        materializations=materializations,
        failed=sum(1 for r in work if r.dagster_run.status == dg.DagsterRunStatus.FAILURE),
    )


def edit_judges(path: Path) -> None:
    text = path.read_text()
    marker = f"  - name: {EDITED_JUDGE}\n"
    assert marker in text, f"{path}: no judge {EDITED_JUDGE}"
    path.write_text(text.replace(marker, f"{marker}    max_tokens: 777\n", 1))


def fix_verdict(corpus: Path) -> Path:
    for page in sorted((corpus / "pages").rglob("*.md")):
        text = page.read_text()
        if "| Result | Accepted |" in text:
            page.write_text(text.replace("| Result | Accepted |", "| Result | Wrong Answer |", 1))
            return page
    raise SystemExit(f"{corpus}: no Accepted page to fix")


def print_phase(phase: Phase, cron: str, watch: bool) -> None:
    if phase.observed_after is None:
        seen = "no observation run"
    else:
        seen = f"observed after {phase.observed_after:.1f} s by {phase.observed_by}"
    cron_wait = phase.observed_after if phase.observed_by == "cojudge_automation" and phase.name != "first" else 0.0
    print(
        f"{phase.name}: fresh after {phase.seconds:.1f} s ({phase.seconds / 60:.1f} min); {seen}; "
        f"cron wait {cron_wait or 0.0:.1f} s (cron {cron}, source watch {'on' if watch else 'off'}); "
        f"{phase.runs} runs (observations aside), {phase.materializations} materializations, {phase.failed} failed",
        flush=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--watch", choices=("on", "off"), default="on")
    parser.add_argument("--cache", type=Path, default=None, help="the sandbox's result cache (default: a new one)")
    parser.add_argument("--timeout", type=float, default=5400.0, help="seconds each phase may take")
    args = parser.parse_args()
    cron = os.environ.get("COJUDGE_OBSERVE_CRON", "*/5 * * * *")
    with tempfile.TemporaryDirectory(prefix="cojudge-daemon-times-") as folder, postgres_cluster("times") as pg:
        tmp = Path(folder)
        corpus = tmp / "demo"
        shutil.copytree(REPO / "data" / "demo", corpus)
        judges = tmp / "judges.yaml"
        shutil.copy(REPO / "data" / "judges.yaml", judges)
        cache = args.cache or tmp / "cache"
        env = {
            "COJUDGE_CORPUS": str(corpus),
            "COJUDGE_LAYOUT": "pages",
            "COJUDGE_JUDGES": str(judges),
            "COJUDGE_CACHE": str(cache),
            **deployed_env(tmp / "deployed", pg.url, COJUDGE_PROVIDER_LIMITS="*=2"),
        }
        for name in ("COJUDGE_AUTOMATION_INTERVAL_S", "COJUDGE_SHARDS", "COJUDGE_EXECUTOR"):
            os.environ.pop(name, None)  # the deployed defaults
        os.environ.update(env)
        (tmp / "deployed" / "files").mkdir(parents=True)
        home = tmp / "home"
        instance = deployed_instance(home, dict(os.environ))
        load = os.getloadavg()
        print(
            f"demo corpus, deployed profile, daemon defaults (automation every 30 s, cron {cron}, source watch "
            f"{args.watch}), sandbox cache {'given' if args.cache else 'empty'}; load average at start "
            f"{load[0]:.1f} {load[1]:.1f} {load[2]:.1f} on {os.cpu_count()} cores",
            flush=True,
        )
        daemon = Daemon(tmp, home, env)
        try:
            t0 = time.time()
            daemon.start()
            wait_settled(instance, daemon, t0, args.timeout)
            print_phase(measure(instance, "first", t0), cron, True)
            if args.watch == "off":
                stopped = subprocess.run(
                    [str(Path(sys.executable).parent / "dagster"), "sensor", "stop", "source_watch"]
                    + ["-f", str(daemon.location)],
                    env=daemon.env,
                    capture_output=True,
                    text=True,
                    timeout=600,
                )
                if stopped.returncode:
                    raise SystemExit(stopped.stdout + stopped.stderr)
            t1 = time.time()
            edit_judges(judges)
            wait_settled(instance, daemon, t1, args.timeout)
            print_phase(measure(instance, "edit", t1), cron, args.watch == "on")
            t2 = time.time()
            page = fix_verdict(corpus)
            wait_settled(instance, daemon, t2, args.timeout)
            print_phase(measure(instance, f"data fix ({page.relative_to(corpus)})", t2), cron, args.watch == "on")
        finally:
            daemon.stop()
            load = os.getloadavg()
            print(f"load average at end {load[0]:.1f} {load[1]:.1f} {load[2]:.1f}", flush=True)


if __name__ == "__main__":
    main()
