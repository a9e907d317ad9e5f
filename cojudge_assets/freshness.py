"""Which steps of a run are already up to date, by Dagster's data versions, through Dagster's public API.

Every asset carries a ``code_version``; the corpus is the observable source
asset ``contest_corpus`` whose data version hashes every file; the judges file is
the observable source asset ``judges_file``, partitioned by judge, whose data
version per judge is what shapes that judge's answers (its answer settings and
its last provider drift, or an imported judge's source files: :func:`judge_version`);
assets whose content can stay the same when their inputs change (the label-free
judge requests, the answers) record a content hash as their data version.

An asset partition is MISSING when it was never materialized, STALE when its code
version changed since, or an input's data version did, FRESH otherwise. That is
the rule of Dagster's own stale status (the UI's "Unsynced"), read here from the
materialization records and their data-provenance tags (``dagster/code_version``,
``dagster/input_data_version/<key>``, ``dagster/input_event_pointer/<key>``) with
public instance queries, so the command and the UI agree (a test compares the two).
It is shallow (an asset is STALE when its own inputs moved), which is why it is
asked step by step in dependency order, after the upstream steps ran.

A step (one job, one partition) is skipped when every asset it materializes is
FRESH for that partition and its table is in the current DuckDB file, so
pointing the same Dagster instance at a new or deleted DuckDB file recomputes
what is not there (a partition deleted by hand from a table that is still there
is not noticed: materialize it by name, or use ``--force``).
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterable

import dagster as dg
import duckdb
import polars as pl

from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.defs.partitions import upstream_keys

# An asset is stored as a DuckDB table when its kinds are those of the DuckDB IO manager (defs/io.py KINDS); the
# report (kinds html, duckdb) writes files and is not looked for in the DuckDB file.
TABLE_KINDS = frozenset({"polars", "duckdb"})
ANSWER_COLUMNS = ("attempt_uid", "request_hash", "epoch", "status", "p_accept", "s_algo", "s_robust")
OBSERVE_JOB = "observe_sources"  # observes the source assets (corpus, judges file) before a run's steps

# Dagster's data-provenance tags on materializations and observations (documented under "data versioning")
CODE_VERSION_TAG = "dagster/code_version"
DATA_VERSION_TAG = "dagster/data_version"
INPUT_VERSION_TAG = "dagster/input_data_version/"
INPUT_POINTER_TAG = "dagster/input_event_pointer/"
NEVER_OBSERVED = "INITIAL"  # the data version Dagster records for a source asset not observed yet
NEVER_MATERIALIZED = ""  # ... and for an asset never materialized


def content_version(table: pl.DataFrame, columns: list[str]) -> dg.DataVersion:
    """A data version from the content of ``columns`` (rows in sorted order), independent of row order."""
    rows = table.select(columns).sort(columns).write_csv()
    return dg.DataVersion(hashlib.sha256(rows.encode()).hexdigest()[:32])


def judge_version(settings: dict, drift_epoch: int | None = None) -> dg.DataVersion:
    """A hosted or local judge's data version: its answer settings (judges/config.py ``answer_settings``) and
    the epoch its last provider drift opened (judges/drift.py), so editing what the judge answers with, or a
    drift, makes exactly that judge's partitions stale."""
    text = json.dumps({"settings": settings, "drift_epoch": drift_epoch}, sort_keys=True, default=str)
    return dg.DataVersion(hashlib.sha256(text.encode()).hexdigest()[:32])


class _Records:
    """The latest materialization or observation records of asset partitions, by public instance queries."""

    def __init__(self, instance: dg.DagsterInstance, sources: set[dg.AssetKey]):
        self.instance, self.sources = instance, sources

    def latest(self, key: dg.AssetKey, partition: str | None, *, after: int | None = None, before: int | None = None):
        fetch = self.instance.fetch_observations if key in self.sources else self.instance.fetch_materializations
        found = fetch(
            dg.AssetRecordsFilter(
                asset_key=key,
                asset_partitions=[partition] if partition else None,
                after_storage_id=after,
                before_storage_id=before,
            ),
            limit=1,
        ).records
        return found[0] if found else None

    def version(self, key: dg.AssetKey, partition: str | None, **bounds) -> str | None:
        record = self.latest(key, partition, **bounds)
        if record is None:
            return None
        event = record.asset_observation if key in self.sources else record.asset_materialization
        return event.tags.get(DATA_VERSION_TAG) if event is not None else None


def _differ(recorded: str | None, current: str | None) -> bool:
    # Dagster's rule: an input recorded as never observed and still never materialized has not changed
    return not (recorded == NEVER_OBSERVED and current == NEVER_MATERIALIZED) and recorded != current


def stale_causes(
    defs: dg.Definitions, instance: dg.DagsterInstance, key: dg.AssetKey, partition_key: str | None
) -> list[str] | None:
    """Why one asset partition is stale (empty: fresh), or None when it was never materialized."""
    specs = {spec.key: spec for spec in defs.resolve_all_asset_specs()}
    records = _Records(instance, _source_keys(defs))
    return _stale_causes(specs, records, key, partition_key)


def _stale_causes(specs: dict, records: _Records, key: dg.AssetKey, partition_key: str | None) -> list[str] | None:
    spec = specs[key]
    partition = partition_key if spec.partitions_def is not None else None
    record = records.latest(key, partition)
    if record is None:
        return None
    tags = record.asset_materialization.tags if record.asset_materialization else {}
    if CODE_VERSION_TAG not in tags:  # no provenance (an old record): a newer input materialization makes it stale
        return [
            f"{d.asset_key.to_user_string()} materialized since"
            for d in spec.deps
            if (r := records.latest(d.asset_key, None)) is not None and r.timestamp > record.timestamp
        ]
    causes = []
    if spec.code_version and spec.code_version != tags[CODE_VERSION_TAG]:
        causes.append("new code version")
    deps = {dep.asset_key for dep in spec.deps}
    recorded = {tag[len(INPUT_VERSION_TAG) :] for tag in tags if tag.startswith(INPUT_VERSION_TAG)}
    causes += [f"dependency on {name} removed" for name in sorted(recorded - {d.to_user_string() for d in deps})]
    for dep in sorted(deps, key=lambda d: d.to_user_string()):
        name = dep.to_user_string()
        if name not in recorded:
            causes.append(f"new dependency on {name}")
            continue
        upstream = specs.get(dep)
        if upstream is None or upstream.partitions_def is None:
            current = records.version(dep, None)
            current = (
                current if current is not None else (NEVER_OBSERVED if dep in records.sources else NEVER_MATERIALIZED)
            )
            if _differ(tags[INPUT_VERSION_TAG + name], current):
                causes.append(f"{name} has a new data version")
            continue
        pointer = tags.get(INPUT_POINTER_TAG + name, "NULL")
        cursor = int(pointer) if pointer.isdigit() else None
        for upstream_key in upstream_keys(spec.partitions_def, partition, upstream.partitions_def):
            if records.latest(dep, upstream_key, after=cursor) is None:
                continue  # nothing new in that partition since this one was materialized
            before = records.version(dep, upstream_key, before=cursor + 1) if cursor else None
            if _differ(before, records.version(dep, upstream_key)):
                causes.append(f"{name}[{upstream_key}] has a new data version")
    return causes


def _source_keys(defs: dg.Definitions) -> set[dg.AssetKey]:
    return {asset.key for asset in defs.assets or [] if isinstance(asset, dg.SourceAsset)}


def job_asset_keys(defs: dg.Definitions, job_name: str) -> list[dg.AssetKey]:
    """The assets a job of the Definitions materializes, from its asset selection."""
    job = next(job for job in defs.jobs or [] if job.name == job_name)
    sources = _source_keys(defs)
    return sorted(
        (key for key in job.selection.resolve(list(defs.assets or [])) if key not in sources),
        key=lambda k: k.to_user_string(),
    )


def _in_duckdb(conn: duckdb.DuckDBPyConnection | None, table: str) -> bool:
    return conn is not None and has_table(conn, table)


def outdated_assets(
    defs: dg.Definitions, instance: dg.DagsterInstance, job_name: str, partition_key: str | None, database: str
) -> list[str]:
    """The assets of one step that are not up to date (empty: the step can be skipped), with why."""
    specs = {spec.key: spec for spec in defs.resolve_all_asset_specs()}
    records = _Records(instance, _source_keys(defs))
    try:
        conn = duckdb.connect(database, read_only=True)
    except duckdb.Error:  # no file yet (or another writer holds it): nothing can be taken as present
        conn = None
    try:
        outdated = []
        for key in job_asset_keys(defs, job_name):
            causes = _stale_causes(specs, records, key, partition_key)
            if causes is None:
                outdated.append(f"{key.to_user_string()} missing")
            elif causes:
                outdated.append(f"{key.to_user_string()} stale ({'; '.join(causes)})")
            elif TABLE_KINDS <= set(specs[key].kinds) and not _in_duckdb(conn, key.path[-1]):
                outdated.append(f"{key.to_user_string()} not in {database}")
        return outdated
    finally:
        if conn is not None:
            conn.close()


def observe_sources(defs: dg.Definitions, instance: dg.DagsterInstance, run_config: dict | None = None) -> bool:
    """Record the source assets' current data versions (the corpus, each judge of the judges file) with one
    run of :data:`OBSERVE_JOB`, as the UI's "Observe sources" does; whether it succeeded."""
    return observe_sources_run(defs, instance, run_config).success


def observe_sources_run(defs: dg.Definitions, instance: dg.DagsterInstance, run_config: dict | None = None):
    """:func:`observe_sources`, returning the run's result (its failure events say why it failed)."""
    job = defs.resolve_job_def(OBSERVE_JOB)
    config: dict = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    resources = (run_config or {}).get("resources") or {}
    if resources:
        config["resources"] = {name: value for name, value in resources.items() if name in job.required_resource_keys}
    return job.execute_in_process(instance=instance, run_config=config, raise_on_error=False)


def judges_file_versions(specs: Iterable, drift_epochs: dict[str, int]) -> dict[str, dg.DataVersion]:
    """Each judge's data version (see :func:`judge_version`; an imported judge: the sha256 of its source)."""
    from cojudge_assets.judges.imports import source_digest

    versions = {}
    for spec in specs:
        if spec.is_imported:
            try:
                versions[spec.name] = dg.DataVersion(source_digest(spec))
            except (OSError, KeyError) as exc:  # unreadable now: a version of its own, so the partition re-runs
                versions[spec.name] = dg.DataVersion(f"unreadable: {type(exc).__name__}")
        else:
            versions[spec.name] = judge_version(spec.answer_settings(), drift_epochs.get(spec.name))
    return versions
