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

The source watch (:func:`source_watch_sensor`, running by default) stats the corpus folder and the judges file at
every tick of the automation interval and observes the sources when a path, size or modification time changed, so
an edit is picked up within a tick instead of at the next observation cron (the cron stays, as the backstop).
"""

from __future__ import annotations

import hashlib
import os
from pathlib import Path

import dagster as dg
from dagster_duckdb import DuckDBResource

from cojudge_assets.defs.resources import CorpusResource, JudgesResource, judge_store
from cojudge_assets.judges.drift import check, drift_reason

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
        # the store is open only to read and to record (the DuckDB file, or Postgres by query under the deployed
        # profile): runs are not held up while the providers answer
        with judge_store(duckdb) as store:
            recorded = {spec.name: store.served_model(spec.name) for spec in hosted}
        drifted = []
        for spec in hosted:
            try:
                found = check(spec, recorded[spec.name])
            except Exception as exc:  # noqa: BLE001 - one unreachable provider must not hide the others
                notes.append(f"{spec.name}: probe failed ({type(exc).__name__})")
                continue
            if found.note:
                notes.append(f"{spec.name}: {found.note}")
            if found.drifted:
                drifted.append(found)
        if drifted:
            with judge_store(duckdb) as store:
                for found in drifted:
                    if store.served_model(found.judge) != found.recorded:  # re-judged meanwhile: next tick
                        notes.append(f"{found.judge}: its stored answers changed while probing")
                        continue
                    epoch = store.record_drift(found.judge, found.recorded, found.served, drift_reason(found))
                    context.log.warning(
                        f"provider drift: {found.judge} now serves {found.served!r} (stored answers: "
                        f"{found.recorded!r}); epoch {epoch} opened, re-judging its partitions"
                    )
                    requests.append(
                        dg.RunRequest(
                            run_key=f"drift:{found.judge}:{epoch}",
                            job_name=observe_job.name,
                            tags={"cojudge/drift": f"{found.judge}:{found.recorded}->{found.served}"},
                        )
                    )
        if requests:
            return requests
        return dg.SkipReason(
            f"no drift among {len(hosted)} hosted judge(s)" + (f"; {'; '.join(notes)}" if notes else "")
        )

    return provider_drift


WATCH_SENSOR = "source_watch"


def stat_fingerprint(paths: list[Path]) -> str:
    """sha256 over the path, size and modification time of every file under ``paths`` (a file or a folder each),
    without reading one byte: a cheap sign that a source may have changed. Symlinks are not followed, like the
    corpus's own fingerprint (core/ingest/corpus.py); a path that is missing or unreadable contributes that."""
    digest = hashlib.sha256()
    for root in paths:
        found: list[tuple[str, int, int]] = []
        try:
            if root.is_dir():
                for folder, dirs, files in os.walk(root):
                    dirs.sort()
                    for name in (*files, *dirs):
                        item = os.lstat(os.path.join(folder, name))
                        found.append((os.path.join(folder, name), item.st_size, item.st_mtime_ns))
            else:
                item = root.lstat()
                found.append((str(root), item.st_size, item.st_mtime_ns))
        except OSError as exc:
            found.append((str(root), -1, exc.errno or 0))
        for name, size, mtime in sorted(found):
            digest.update(f"{name}\0{size}\0{mtime}\n".encode("utf-8", "surrogateescape"))
    return digest.hexdigest()


def source_watch_sensor(observe_job, interval_s: int) -> dg.SensorDefinition:
    """The sensor that observes the sources as soon as a file of theirs changes (running by default, every
    ``interval_s`` seconds: $COJUDGE_AUTOMATION_INTERVAL_S), instead of at the next tick of the observation cron
    (COJUDGE_OBSERVE_CRON, every 5 minutes), which stays as the backstop."""

    @dg.sensor(
        name=WATCH_SENSOR,
        jobs=[observe_job],
        minimum_interval_seconds=interval_s,
        default_status=dg.DefaultSensorStatus.RUNNING,
        description="Watches the corpus folder and the judges file (paths, sizes, modification times: no file is "
        "read) and observes the sources when they change, so an edit is picked up within a tick rather than at "
        "the next observation cron.",
    )
    def source_watch(context: dg.SensorEvaluationContext, corpus: CorpusResource, judges: JudgesResource):
        seen = stat_fingerprint([corpus.root(), Path(judges.path)])
        if context.cursor == seen:
            return dg.SkipReason(f"no file changed under {corpus.root()} or in {judges.path}")
        context.log.info(f"a file changed under {corpus.root()} or in {judges.path}: observing the sources")
        return dg.SensorResult(
            run_requests=[dg.RunRequest(job_name=observe_job.name, tags={"cojudge/observed_by": WATCH_SENSOR})],
            cursor=seen,
        )

    return source_watch
