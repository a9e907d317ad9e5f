"""Which steps of a run are already up to date, by Dagster's data versions.

Every asset carries a ``code_version``; the corpus is the observable source
asset ``contest_corpus`` whose data version hashes every file; assets whose
content can stay the same when their inputs change (the label-free judge
requests) record a content hash as their data version. Dagster then calls an
asset partition STALE when its code version or an input's data version changed
since it was materialized, MISSING when it never was, FRESH otherwise.

A step (one job, one partition) is skipped when every asset it materializes is
FRESH for that partition and its table is in the current DuckDB file, so
pointing the same Dagster instance at a new or deleted DuckDB file recomputes
what is not there (a partition deleted by hand from a table that is still there
is not noticed: materialize it by name, or use ``--force``). A judge's partition
whose answers are of an older epoch than the judge's current one (a provider
drift was recorded, its re-judging not run yet), or whose judge the judges file
now configures to answer otherwise (another model, temperature, budget), is
outdated too. Stale status is shallow (an asset
is STALE when its own inputs moved), which is why it is asked step by step in
dependency order, after the upstream steps ran.
"""

from __future__ import annotations

import hashlib

import dagster as dg
import duckdb
import polars as pl
from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView  # no public constructor for these yet
from dagster._core.definitions.data_version import CachingStaleStatusResolver, StaleStatus
from dagster._core.definitions.observe import observe  # the in-process observation entry point
from dagster._core.definitions.temporal_context import TemporalContext
from dagster._time import get_current_datetime

from cojudge_assets.core.predictions import has_table
from cojudge_assets.judges.config import JudgesConfigError, find_judge
from cojudge_assets.judges.imports import import_behind
from cojudge_assets.judges.store import SETTINGS_TABLE, settings_change


# An asset is stored as a DuckDB table when its kinds are those of the DuckDB IO manager (defs/io.py KINDS); the
# report (kinds html, duckdb) writes files and is not looked for in the DuckDB file.
TABLE_KINDS = frozenset({"polars", "duckdb"})
ANSWER_COLUMNS = ("attempt_uid", "request_hash", "epoch", "status", "p_accept", "s_algo", "s_robust")


def content_version(table: pl.DataFrame, columns: list[str]) -> dg.DataVersion:
    """A data version from the content of ``columns`` (rows in sorted order), independent of row order."""
    rows = table.select(columns).sort(columns).write_csv()
    return dg.DataVersion(hashlib.sha256(rows.encode()).hexdigest()[:32])


def _resolver(instance: dg.DagsterInstance, graph) -> CachingStaleStatusResolver:
    view = AssetGraphView(temporal_context=TemporalContext(effective_dt=get_current_datetime(), last_event_id=None),
                          instance=instance, asset_graph=graph)
    return CachingStaleStatusResolver(instance, graph, view)


def _in_duckdb(conn: duckdb.DuckDBPyConnection | None, table: str) -> bool:
    return conn is not None and has_table(conn, table)


EPOCH_TABLES = ("judge_outputs", "perturbation_outputs")  # partitions keyed by a judge, rows by its epoch


def _judge_behind(conn: duckdb.DuckDBPyConnection | None, table: str, partition_key: str, corpus=None) -> str:
    """Why a judge's partition must be judged again although Dagster calls it fresh ("" if it need not): its
    answers are of an older epoch than the judge's current one (a drift was recorded, judges/drift.py, and its
    re-judging has not run yet), or the judges file changed what the judge answers with, or an imported
    judge's source file changed since it was imported (judges/imports.py)."""
    if conn is None:
        return ""
    judge = partition_key.split("|")[-1]  # "condition|judge" or "judge"
    try:
        spec = find_judge(judge, corpus.root(), corpus.layout) if corpus else find_judge(judge)
    except JudgesConfigError:  # no longer in the judges file: nothing to compare with
        spec = None
    if spec is not None and spec.is_imported:
        return import_behind(conn, spec, partition_key.split("|")[0])
    stored = conn.execute(f'select max(epoch) from main."{table}" where judge = ?', [judge]).fetchone()[0]
    current = conn.execute("select max(epoch) from main.judge_epochs where judge = ?", [judge]).fetchone()[0] \
        if _in_duckdb(conn, "judge_epochs") else None
    if stored is not None and current is not None and int(current) > int(stored):
        return "behind its judge's epoch"
    if not _in_duckdb(conn, SETTINGS_TABLE) or spec is None:
        return ""
    change = settings_change(conn, judge, spec.answer_settings())
    return f"judged with other settings ({change})" if change else ""


def outdated_assets(defs: dg.Definitions, instance: dg.DagsterInstance, job_name: str, partition_key: str | None,
                    database: str) -> list[str]:
    """The assets of one step that are not up to date (empty: the step can be skipped), with why."""
    graph = defs.resolve_asset_graph()
    job = defs.resolve_job_def(job_name)
    resolver = _resolver(instance, graph)
    try:
        conn = duckdb.connect(database, read_only=True)
    except duckdb.Error:  # no file yet (or another writer holds it): nothing can be taken as present
        conn = None
    try:
        outdated = []
        for key in sorted(job.asset_layer.selected_asset_keys):
            node = graph.get(key)
            if not node.is_materializable:
                continue
            status = resolver.get_status(key, partition_key if node.is_partitioned else None)
            if status != StaleStatus.FRESH:
                outdated.append(f"{key.to_user_string()} {status.value.lower()}")
            elif TABLE_KINDS <= node.kinds and not _in_duckdb(conn, key.path[-1]):
                outdated.append(f"{key.to_user_string()} not in {database}")
            elif key.path[-1] in EPOCH_TABLES and partition_key and (
                    why := _judge_behind(conn, key.path[-1], partition_key, defs.resources["corpus"])):
                outdated.append(f"{key.to_user_string()} {why}")
        return outdated
    finally:
        if conn is not None:
            conn.close()


def observe_corpus(defs: dg.Definitions, instance: dg.DagsterInstance, run_config: dict) -> str:
    """Record the corpus's current data version (an in-process observation run); returns it."""
    source = next(a for a in defs.assets if isinstance(a, dg.SourceAsset) and a.key == dg.AssetKey("contest_corpus"))
    resources = {"corpus": defs.resources["corpus"]}
    corpus_config = (run_config.get("resources") or {}).get("corpus")
    config = {"loggers": {"console": {"config": {"log_level": "WARNING"}}}}
    if corpus_config:
        config["resources"] = {"corpus": corpus_config}
    result = observe([source], run_config=config, instance=instance, resources=resources)
    events = result.get_asset_observation_events()
    return events[-1].asset_observation_data.asset_observation.tags.get("dagster/data_version", "") if events else ""
