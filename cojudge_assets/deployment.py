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
MAX_CONCURRENT_RUNS = 10  # all runs at once (Dagster's default), raised to the sum of the named providers' limits
EVERY_PROVIDER = "*"
DEQUEUE_WORKERS = 4


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


def instance_config(settings: Settings, specs: list[JudgeSpec]) -> dict:
    """The instance's dagster.yaml for the deployed profile, as a mapping (module docstring)."""
    problems = settings.profile_problems()
    if not settings.deployed:
        problems.insert(0, "COJUDGE_PROFILE is not 'deployed'")
    if problems:
        raise DeploymentError("; ".join(problems))
    rules = provider_rules(settings, specs)
    return {
        "storage": {"postgres": {"postgres_db": postgres_db(settings.postgres_url.value)}},
        # the daemon launches queued runs from several threads: a launch (a run process importing the code
        # location) takes seconds, and one after another they would be the bottleneck, not the providers
        "run_coordinator": {
            "module": "dagster.core.run_coordinator",
            "class": "QueuedRunCoordinator",
            "config": {"dequeue_use_threads": True, "dequeue_num_workers": DEQUEUE_WORKERS},
        },
        "concurrency": {
            "runs": {
                "max_concurrent_runs": max(
                    MAX_CONCURRENT_RUNS, sum(r["limit"] for r in rules if isinstance(r["value"], str))
                ),
                "tag_concurrency_limits": rules,
            }
        },
        "telemetry": {"enabled": False},
    }


def write_instance_config(settings: Settings, specs: list[JudgeSpec], home: Path) -> tuple[Path, Path | None]:
    """``home``/dagster.yaml written (the folder made), and where the previous file was kept: an existing
    dagster.yaml that differs (an operator's edits, a run launcher added by hand) is renamed to
    ``dagster.yaml.<UTC time>.bak`` first, never overwritten. The new file is written beside it and renamed into
    place, so a killed command leaves the old file or the new one, never half of one."""
    header = "# written by `cojudge deployment config` from the settings (cojudge_assets/deployment.py)\n"
    text = header + yaml.safe_dump(instance_config(settings, specs), sort_keys=False)
    home.mkdir(parents=True, exist_ok=True)
    path, kept = home / "dagster.yaml", None
    if path.exists() and path.read_text() != text:
        kept = home / f"dagster.yaml.{datetime.now(UTC):%Y%m%dT%H%M%S.%fZ}.bak"
        path.rename(kept)
    partial = home / f".dagster.yaml.{os.getpid()}.tmp"
    partial.write_text(text)
    os.replace(partial, path)
    return path, kept
