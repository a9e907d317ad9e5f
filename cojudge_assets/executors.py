"""The Celery executor of a deployment (dagster-celery on a Redis broker), chosen by configuration only.

``COJUDGE_EXECUTOR=celery`` (definitions.py ``executor_from_environment``) sends every step of a launched run to
the Celery workers listening on ``$COJUDGE_CELERY_BROKER`` (a Redis URL, ``redis://host:6379/0``; results on
``$COJUDGE_CELERY_BACKEND``, by default the same Redis). The workers may run on other machines: they share the
Dagster instance (Postgres) and the table storage with the run, and load the same code with the same
environment (the Definitions, ``$COJUDGE_SHARDS``). :func:`worker_config` is the YAML the workers are started
with (``dagster-celery worker start -A dagster_celery.app -y celery.yaml``), so the executor and the workers
never disagree on the broker.

A broker that is not set, or not reachable, is refused naming the setting: when the Definitions load (not set)
or when a run starts (unreachable, within :data:`BROKER_TIMEOUT_S`), never by a run that waits for ever for a
worker it cannot reach.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any, cast

import dagster as dg

from cojudge_assets.settings import redact

CELERY_BROKER_VARIABLE = "COJUDGE_CELERY_BROKER"
CELERY_BACKEND_VARIABLE = "COJUDGE_CELERY_BACKEND"
BROKER_TIMEOUT_S = 5.0


class BrokerError(Exception):
    """The Celery broker is not configured or cannot be reached; the message names the setting."""


def celery_settings(environ: Mapping[str, str] | None = None) -> dict[str, str]:
    """The executor's (and the workers') ``broker`` and ``backend``, from the environment."""
    environ = os.environ if environ is None else environ
    broker = environ.get(CELERY_BROKER_VARIABLE, "").strip()
    if not broker:
        raise BrokerError(
            f"COJUDGE_EXECUTOR=celery needs {CELERY_BROKER_VARIABLE}, the URL of the Celery broker the workers "
            "listen on (e.g. redis://127.0.0.1:6379/0); it is not set"
        )
    return {"broker": broker, "backend": environ.get(CELERY_BACKEND_VARIABLE, "").strip() or broker}


def worker_config(environ: Mapping[str, str] | None = None) -> dict:
    """The config file of the workers (``dagster-celery worker start -y``): the executor's own settings."""
    return {"execution": {"config": celery_settings(environ)}}


def check_broker(url: str, variable: str = CELERY_BROKER_VARIABLE, timeout: float = BROKER_TIMEOUT_S) -> None:
    """Connect to the broker once, within ``timeout`` seconds; raise :class:`BrokerError` naming ``variable`` and
    the URL with its password (if any) replaced by ``***``: the message goes to the run's log."""
    from kombu import Connection

    try:
        with Connection(url, connect_timeout=timeout) as connection:
            connection.ensure_connection(max_retries=1, timeout=timeout)
    except Exception as error:  # kombu's OperationalError, or a malformed URL (ValueError, KeyError...)
        raise BrokerError(
            f"{variable}={redact(url)}: the Celery broker cannot be reached ({type(error).__name__}: {error}); "
            f"start it, or point {variable} at the broker the workers listen on"
        ) from error


def celery_executor_from_environment(environ: Mapping[str, str] | None = None) -> dg.ExecutorDefinition:
    """dagster-celery's executor with the broker and backend of the environment, checking the broker when a run
    starts (see the module docstring)."""
    from dagster_celery import celery_executor

    settings = celery_settings(environ)

    @dg.executor(
        name="celery",
        config_schema=cast(Any, celery_executor.config_schema),  # dagster-celery's own schema, unchanged
        requirements=dg.multiple_process_executor_requirements(),
    )
    def checked_celery_executor(init_context: dg.InitExecutorContext):
        check_broker(str(init_context.executor_config["broker"]))
        return celery_executor.executor_creation_fn(init_context)  # type: ignore[misc]

    return checked_celery_executor.configured(settings, name="celery")
