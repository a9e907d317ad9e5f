"""The code the Celery test's runs and its workers load (by this module's path: a worker reconstructs the job
from it, as a worker on another machine would from the same checkout).

It is the project's own Definitions (``build_definitions``, the executor chosen by ``$COJUDGE_EXECUTOR``), with
one difference: tables go to Dagster's ``FilesystemIOManager`` under ``$COJUDGE_TEST_STORE``, a storage that
takes concurrent writers. The embedded DuckDB file takes one writer, and the deployment's table storage is the
deployment profile's (docs/operations.md), not this test's subject.
"""

from __future__ import annotations

import os

import dagster as dg

from cojudge_assets.definitions import INGEST_JOB, LABEL_AUDIT_JOB, build_definitions

STORE_VARIABLE = "COJUDGE_TEST_STORE"


def definitions() -> dg.Definitions:
    base = build_definitions()
    return dg.Definitions(
        assets=base.assets,
        asset_checks=base.asset_checks,
        jobs=base.jobs,
        resources={**(base.resources or {}), "io_manager": dg.FilesystemIOManager(base_dir=os.environ[STORE_VARIABLE])},
        executor=base.executor,
    )


def ingest() -> dg.JobDefinition:
    return definitions().resolve_job_def(INGEST_JOB)


def label_audit_shards() -> dg.JobDefinition:
    return definitions().resolve_job_def(LABEL_AUDIT_JOB)
