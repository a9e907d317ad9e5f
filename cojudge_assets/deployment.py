"""The Dagster instance of the deployed profile, written from the settings: ``cojudge deployment config``.

The instance's ``dagster.yaml`` (docs/operations.md, Runbook) holds what is not the code location's business:

* storage on Postgres (dagster-postgres ``postgres_db``, with ``scheme: postgresql+psycopg2``: SQLAlchemy 2.1 takes
  psycopg 3 for a bare ``postgresql://`` URL and dagster-postgres installs psycopg2; ``connect_timeout`` so an
  unreachable server is an error within seconds); never a password: a URL with one is refused, and libpq reads it
  from ``PGPASSWORD`` or ``~/.pgpass`` in each process's environment;
* the queued run coordinator, whose daemon launches the runs the automation sensor requests;
* the limits per provider, in Dagster's current form (``concurrency: runs: tag_concurrency_limits``) on the run
  tag ``cojudge/provider`` that every run of a judge's partition carries (defs/partitions.py
  ``JudgePartitions``): the runs of different providers' judges run at once, and no provider has more runs than
  its limit.

Every provider of a judge with partitions needs a limit (``COJUDGE_PROVIDER_LIMITS``, ``provider=n`` pairs; ``*=n``
is a ceiling for every provider, those not named included): a provider without one is refused, naming it, so no
judge is ever run without a bound by accident.
"""

from __future__ import annotations

import os
from datetime import UTC, datetime
from pathlib import Path
from urllib.parse import unquote, urlsplit

import yaml

from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.settings import (
    POSTGRES_VARIABLE,
    PROVIDER_LIMITS_VARIABLE,
    Settings,
    libpq_url,
    provider_limits,
    redact,
    url_secret,
)

PROVIDER_TAG = "cojudge/provider"  # defs/partitions.py PROVIDER_TAG (the command layer does not import defs/)
CONNECT_TIMEOUT_S = 5
EVERY_PROVIDER = "*"
DEQUEUE_WORKERS = 4
SANDBOX_TAG = "cojudge/sandbox"  # defs/partitions.py SANDBOX_TAG: on every run of a sandboxed shard
SANDBOX_VALUE = "shard"
START_TIMEOUT_S = 300  # a run launched but not started after this is failed (a launch imports the code: ~9 s here)
CANCEL_TIMEOUT_S = 180  # a run cancelling for longer is marked canceled
MONITOR_POLL_S = 60  # how often monitoring checks the runs' workers


class DeploymentError(ValueError):
    """A deployment setting that makes no instance (the message names the setting)."""


def postgres_db(url: str) -> dict:
    """dagster-postgres's ``postgres_db`` block for a SQLAlchemy or libpq URL."""
    parts = urlsplit(url)
    if not parts.hostname or not parts.path.strip("/"):
        raise DeploymentError(f"{POSTGRES_VARIABLE}={redact(url)!r}: expected postgresql+psycopg2://user@host:port/db")
    if where := url_secret(url):
        # the instance's dagster.yaml would hold it in clear; libpq (psycopg2, under both the instance's storage and
        # the judge store) reads the password from its own variable or file when the URL has none
        raise DeploymentError(
            f"{POSTGRES_VARIABLE}={redact(url)!r} carries a password in {where}, which would be written into "
            "dagster.yaml: leave it out of the URL and give it to libpq in PGPASSWORD or ~/.pgpass (PGPASSFILE) in "
            "the environment of the daemon, the webserver and the workers"
        )
    block: dict = {
        "username": unquote(parts.username or "postgres"),
        "hostname": parts.hostname,
        "db_name": parts.path.strip("/"),
        "port": parts.port or 5432,
        "scheme": "postgresql+psycopg2",
        "params": {"connect_timeout": CONNECT_TIMEOUT_S},
    }
    return block


def reach_postgres(settings: Settings) -> None:
    """The deployed profile's Postgres answers and takes its role and database, or a DeploymentError in one line
    that says which of server down, role or database missing, authentication refused it is
    (judges/postgres_store.py ``connect``). The command's preflight calls it before a run claims anything."""
    from cojudge_assets.judges.postgres_store import StoreUnreachable, connect

    if where := url_secret(settings.postgres_url.value):
        raise DeploymentError(
            f"{POSTGRES_VARIABLE}={redact(settings.postgres_url.value)!r} carries a password in {where}"
        )
    try:
        connect(libpq_url(settings.postgres_url.value)).close()
    except StoreUnreachable as exc:
        raise DeploymentError(str(exc)) from None


def provider_rules(settings: Settings, specs: list[JudgeSpec]) -> list[dict]:
    """The run queue's rules: one per named provider, and one per unique value for ``*``; refuses a provider of
    these judges that has no limit."""
    try:
        limits = provider_limits(settings.provider_limits.value)
    except ValueError as exc:
        raise DeploymentError(str(exc)) from None
    providers = sorted({spec.provider for spec in specs if spec.asked})
    unbounded = [p for p in providers if p not in limits and EVERY_PROVIDER not in limits]
    if unbounded:
        raise DeploymentError(
            f"{PROVIDER_LIMITS_VARIABLE}: no limit for provider(s) {', '.join(unbounded)} (of the judges "
            f"{', '.join(s.name for s in specs if s.provider in unbounded)}); set one per provider "
            f"({unbounded[0]}=2) or a ceiling for all (*=2)"
        )
    rules: list[dict] = [
        {"key": PROVIDER_TAG, "value": name, "limit": limit}
        for name, limit in sorted(limits.items())
        if name != EVERY_PROVIDER
    ]
    if EVERY_PROVIDER in limits:
        rules.append(
            {"key": PROVIDER_TAG, "value": {"applyLimitPerUniqueValue": True}, "limit": limits[EVERY_PROVIDER]}
        )
    return rules


def machine_limits(cores: int | None = None) -> tuple[int, int]:
    """The defaults sized to the machine: (runs at once, sandboxed runs at once). A run is a process that imports
    the code location (seconds of CPU) and a sandboxed shard (``label_audit``, ``mutants``) uses every core through
    the contest judge's worker pool, so: as many runs as cores (at least 2), raised to the sum of the named
    providers' limits (a judge's run mostly waits on its provider), and one sandboxed run per two cores (at least
    1). On 2 cores: 2 runs (or the providers' sum), 1 sandboxed (issue 37: 10 at once ran 8 sandboxed runs, load
    20)."""
    cores = cores or os.cpu_count() or 1
    return max(2, cores), max(1, cores // 2)


def instance_config(settings: Settings, specs: list[JudgeSpec], cores: int | None = None) -> dict:
    """The instance's dagster.yaml for the deployed profile, as a mapping (module docstring)."""
    problems = settings.profile_problems()
    if not settings.deployed:
        problems.insert(0, "COJUDGE_PROFILE is not 'deployed'")
    if problems:
        raise DeploymentError("; ".join(problems))
    runs, sandboxed = machine_limits(cores)
    rules = provider_rules(settings, specs)
    # the named providers' limits are the operator's word that their runs (waiting on the provider) run at once
    runs = max(runs, sum(r["limit"] for r in rules if isinstance(r["value"], str)))
    rules.append({"key": SANDBOX_TAG, "value": SANDBOX_VALUE, "limit": sandboxed})
    return {
        "storage": {"postgres": {"postgres_db": postgres_db(settings.postgres_url.value)}},
        # each run a process of its own session, so killing the daemon's process group leaves the runs running, and
        # monitoring can ask whether a run's worker is alive (launcher.py)
        "run_launcher": {"module": "cojudge_assets.launcher", "class": "SessionRunLauncher"},
        # the daemon launches queued runs from several threads: a launch (a run process importing the code
        # location) takes seconds, and one after another they would be the bottleneck, not the providers
        "run_coordinator": {
            "module": "dagster.core.run_coordinator",
            "class": "QueuedRunCoordinator",
            "config": {"dequeue_use_threads": True, "dequeue_num_workers": DEQUEUE_WORKERS},
        },
        "concurrency": {"runs": {"max_concurrent_runs": runs, "tag_concurrency_limits": rules}},
        # a run whose worker died is failed (not left STARTED, holding its provider's places), one stuck starting or
        # cancelling too; the launcher cannot resume a run, and the automation re-requests the failed partition.
        # No run_retries: with them the retry and the automation's request both ran the partition (the recovery test)
        "run_monitoring": {
            "enabled": True,
            "start_timeout_seconds": START_TIMEOUT_S,
            "cancel_timeout_seconds": CANCEL_TIMEOUT_S,
            "max_resume_run_attempts": 0,
            "poll_interval_seconds": MONITOR_POLL_S,
        },
        # the sensor and schedule ticks (the automation sensor ticks every 30 s: 2,880 a day); the runs and their
        # events are the assets' history and are kept (docs/operations.md, Retention)
        "retention": {
            kind: {"purge_after_days": {"skipped": 7, "success": 30, "failure": 90}}
            for kind in ("schedule", "sensor", "auto_materialize")
        },
        "telemetry": {"enabled": False},
    }


# the keys cojudge derives from the settings: rewritten by each `deployment config`; every other key of an existing
# dagster.yaml (the operator's) is kept, the defaults below included once the operator has changed them
MANAGED = (("storage",), ("run_coordinator",), ("concurrency", "runs", "tag_concurrency_limits"), ("telemetry",))


def _get(mapping: dict, path: tuple[str, ...]):
    for key in path:
        if not isinstance(mapping, dict) or key not in mapping:
            return None
        mapping = mapping[key]
    return mapping


def _set(mapping: dict, path: tuple[str, ...], value) -> None:
    for key in path[:-1]:
        if not isinstance(mapping.get(key), dict):
            mapping[key] = {}
        mapping = mapping[key]
    mapping[path[-1]] = value


def _defaults_under(existing: dict, ours: dict) -> dict:
    """``existing`` with every key of ``ours`` it lacks added (recursively): the operator's values win."""
    merged = dict(existing)
    for key, value in ours.items():
        if key not in merged:
            merged[key] = value
        elif isinstance(merged[key], dict) and isinstance(value, dict):
            merged[key] = _defaults_under(merged[key], value)
    return merged


def merged_config(existing: dict, ours: dict) -> tuple[dict, list[str]]:
    """``ours`` merged into an operator's ``existing`` dagster.yaml: the managed keys (:data:`MANAGED`) set from
    ours, the provider and sandbox rules replaced and the operator's rules on other tags kept, every other key the
    operator's when set and ours when not. Also the managed values that changed, one line each, for the command to
    print."""
    merged = _defaults_under(existing, ours)
    changed = []
    for path in MANAGED:
        value = _get(ours, path)
        before = _get(existing, path)
        if path[-1] == "tag_concurrency_limits":
            kept = [r for r in before or [] if isinstance(r, dict) and r.get("key") not in (PROVIDER_TAG, SANDBOX_TAG)]
            value = value + kept
        if before is not None and before != value:
            changed.append(f"{'.'.join(path)}: replaced from the settings")
        _set(merged, path, value)
    return merged, changed


def write_instance_config(
    settings: Settings, specs: list[JudgeSpec], home: Path
) -> tuple[Path, Path | None, list[str]]:
    """``home``/dagster.yaml written (the folder made), merged into an existing one (:func:`merged_config`: the
    operator's keys kept), the previous file copied to ``dagster.yaml.<UTC time>.bak`` when the merge changes it,
    and the managed values that changed. The new file is written beside it and renamed into place, so a killed
    command leaves the old file or the new one, never half of one."""
    ours = instance_config(settings, specs)
    home.mkdir(parents=True, exist_ok=True)
    path, kept = home / "dagster.yaml", None
    changed: list[str] = []
    config = ours
    if path.exists():
        before = path.read_text()
        try:
            existing = yaml.safe_load(before) or {}
        except yaml.YAMLError as exc:
            raise DeploymentError(f"{path}: not YAML ({exc}); fix it or move it aside") from None
        if not isinstance(existing, dict):
            raise DeploymentError(f"{path}: expected a mapping of Dagster's instance settings, got {before[:40]!r}")
        config, changed = merged_config(existing, ours)
        if config == existing:
            return path, None, []
        kept = home / f"dagster.yaml.{datetime.now(UTC):%Y%m%dT%H%M%S.%fZ}.bak"
        kept.write_text(before)
    header = "# written by `cojudge deployment config` from the settings (cojudge_assets/deployment.py); keys it does\n"
    header += "# not derive from the settings are kept when it is run again (edit them here)\n"
    partial = home / f".dagster.yaml.{os.getpid()}.tmp"
    partial.write_text(header + yaml.safe_dump(config, sort_keys=False))
    os.replace(partial, path)
    return path, kept, changed


def write_private(path: Path, text: str) -> Path:
    """``text`` into ``path`` readable by its owner alone (mode 600, also when the file existed with another mode),
    written beside it and renamed into place: for a file that may hold a secret (``celery.yaml``'s broker URL)."""
    partial = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    fd = os.open(partial, os.O_WRONLY | os.O_CREAT | os.O_TRUNC, 0o600)
    with os.fdopen(fd, "w") as out:
        out.write(text)
    os.chmod(partial, 0o600)
    os.replace(partial, path)
    return path
