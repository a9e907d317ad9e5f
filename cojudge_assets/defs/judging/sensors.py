"""The batch sensor: a deployment picks up a provider batch that finishes overnight, with no one watching.

A judge in batch mode (judges/batch.py) records each batch in the judge store before it waits. A run that returns
with batches still at the provider (``batch.wait: false``, or ``batch.max_wait_s`` passed) ends its partition
failed with ``batches_pending`` in its metadata; nothing is lost. This sensor reads the store's open batches
(read only) and requests a run of each partition that has one. That run polls its batches (never submits them
again), collects the ended ones and, when every request is answered, materializes the partition. One request per
partition and state of its batches (the run key is the partition and the last time a run updated its batches),
so a partition is asked again only after a run has looked at it.
It starts stopped: ``dagster sensor start pending_batches`` (or the UI) turns it on. It looks every
``$COJUDGE_BATCH_SENSOR_INTERVAL_S`` seconds (600 by default: a provider's batch takes hours).
"""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from cojudge_assets.defs.partitions import condition_judge_key
from cojudge_assets.defs.resources import JudgesResource, judge_store
from cojudge_assets.settings import DEFAULT_BATCH_SENSOR_INTERVAL_S

BATCH_SENSOR = "pending_batches"


def batch_sensor(outputs_job, interval_s: int = DEFAULT_BATCH_SENSOR_INTERVAL_S) -> dg.SensorDefinition:
    """The sensor, targeting the job that materializes ``judge_outputs`` (as built in definitions.py), evaluated at
    most every ``interval_s`` seconds."""

    @dg.sensor(
        name=BATCH_SENSOR,
        job=outputs_job,
        minimum_interval_seconds=interval_s,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Requests a run of each judge_outputs partition with a provider batch not collected yet "
        "(judges in mode batch); the run polls it, collects it and materializes the partition.",
    )
    def pending_batches(context: dg.SensorEvaluationContext, duckdb: DuckDBResource, judges: JudgesResource):
        enabled = {spec.name for spec in judges.enabled() if spec.asked and spec.mode == "batch"}
        with judge_store(duckdb) as store:
            partitions = store.batch_ledger().open_partitions()
        requests = [
            dg.RunRequest(
                run_key=f"{condition}|{judge}|{updated}",
                partition_key=condition_judge_key(condition, judge),
                tags={"cojudge/batch": "collect"},
            )
            for judge, condition, updated in partitions
            if judge in enabled
        ]
        if not requests:
            return dg.SkipReason("no batch pending at a provider")
        return requests

    return pending_batches
