"""The provider drift sensor (judges/drift.py): probe every enabled hosted judge, record the drifted ones.

When a probe reports a model identity other than the one on the judge's stored
answers, the sensor records a drift event, opens the judge's next epoch and
requests one observation of the judges file. The epoch is part of that judge's
data version there (defs/versions.py ``judge_version``), so the automation
conditions (defs/automation.py) then request exactly that judge's partitions of
``judge_outputs`` and ``perturbation_outputs``, and what depends on their answers;
nothing for the other judges. The runs re-send that judge's requests once, into the
new epoch; the old answers stay in ``judge_cache``. The sensor is built with the
Definitions (it needs the observation job) and reads the enabled judges from the ``judges`` resource (the
Definitions' judges file); it starts stopped and, once turned on
in the UI or with ``dagster sensor start provider_drift``, probes once a day
(``DRIFT_INTERVAL_S``), which is the daily schedule the operations section of
the README describes.
"""

from __future__ import annotations

import dagster as dg
from dagster_duckdb import DuckDBResource

from cojudge_assets.defs.resources import JudgesResource
from cojudge_assets.judges.drift import check, record_drift

DRIFT_INTERVAL_S = 24 * 60 * 60


def drift_sensor(observe_job) -> dg.SensorDefinition:
    """The sensor, targeting the job that observes the source assets (as built in definitions.py)."""

    @dg.sensor(
        name="provider_drift",
        jobs=[observe_job],
        minimum_interval_seconds=DRIFT_INTERVAL_S,
        default_status=dg.DefaultSensorStatus.STOPPED,
        description="Probes each enabled hosted judge; on a new served model, records a drift event and "
        "observes the judges file, whose new version for that judge re-judges its partitions into a new epoch.",
    )
    def provider_drift(context: dg.SensorEvaluationContext, duckdb: DuckDBResource, judges: JudgesResource):
        requests, notes = [], []
        hosted = [spec for spec in judges.enabled() if spec.asked and not spec.local]
        with duckdb.get_connection() as conn:
            for spec in hosted:
                try:
                    found = check(conn, spec)
                except Exception as exc:  # noqa: BLE001 - one unreachable provider must not hide the others
                    notes.append(f"{spec.name}: probe failed ({type(exc).__name__})")
                    continue
                if found.note:
                    notes.append(f"{spec.name}: {found.note}")
                if not found.drifted:
                    continue
                epoch = record_drift(conn, found)
                context.log.warning(
                    f"provider drift: {spec.name} now serves {found.served!r} (stored answers: "
                    f"{found.recorded!r}); epoch {epoch} opened, re-judging its partitions"
                )
                requests.append(
                    dg.RunRequest(
                        run_key=f"drift:{spec.name}:{epoch}",
                        job_name=observe_job.name,
                        tags={"cojudge/drift": f"{spec.name}:{found.recorded}->{found.served}"},
                    )
                )
        if requests:
            return requests
        return dg.SkipReason(
            f"no drift among {len(hosted)} hosted judge(s)" + (f"; {'; '.join(notes)}" if notes else "")
        )

    return provider_drift
