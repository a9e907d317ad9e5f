"""When each asset runs, declared with Dagster's ``AutomationCondition`` and decided by Dagster's own evaluator.

Every materializable asset carries :func:`materialize_condition`: it is requested
when it is

* missing (never materialized in this instance),
* or, since it was last updated, its ``code_version`` changed, or an input's data
  version changed (``data_version_changed``: the corpus, each judge's partition of
  the judges file, which holds the judge's answer settings and its drift epoch,
  and every upstream table; defs/versions.py);

every input has something to read (:func:`inputs_present`), nothing upstream of it is about to change
(:class:`UpstreamSettled`: no partition upstream of it, through the partition mappings, requested in the same
evaluation or in a run in progress),
it is not in progress itself, and, on a deployment, its last run did not fail at a step less than its backoff ago
(:class:`FailureBackoff`). So a change is carried down the graph one level per evaluation, and a reader
runs once, after the last of its inputs the change moves (never with an old input, then again).
The observable sources (``contest_corpus``, ``judges_file``) carry
:func:`observe_condition`: observed when never observed, then on a cron.

Two drivers evaluate the same conditions:

* a deployment (``dagster dev`` or webserver + daemon) through :data:`AUTOMATION_SENSOR`,
  an ``AutomationConditionSensorDefinition`` that starts running: a judges-file edit, a
  code change, a data fix or a provider drift (the drift sensor records it and observes
  the judges file) re-materializes what depends on it, with no cojudge command;
* ``cojudge materialize`` (cli.py ``run_steps``), which calls :func:`evaluate` (Dagster's
  public ``evaluate_automation_conditions``) against the instance, runs what it
  requests, and evaluates again until nothing is requested. Its cursor (what the
  previous evaluation saw) is kept in the instance's folder (:class:`CursorFile`).

With ``COJUDGE_FRESHNESS_HOURS`` set (a study that takes new data on a cadence), :data:`FRESHNESS_ASSETS` carry a
time-window :func:`freshness_policy`, which the daemon's freshness evaluation and the UI's asset page show.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import contextvars
import warnings
import weakref
from collections.abc import Callable, Iterable
from dataclasses import dataclass, field
from datetime import timedelta
from pathlib import Path

import dagster as dg

from cojudge_assets.settings import DEFAULT_AUTOMATION_INTERVAL_S, DEFAULT_OBSERVE_CRON

AUTOMATION_SENSOR = "cojudge_automation"
OBSERVE_JOB = "observe_sources"  # observes the source assets (corpus, judges file) before a command's evaluation
# the assets a study with a cadence re-materializes on every change of its data: the ingest's table of attempts
# (every corpus change) and the report (every change anywhere); Dagster's freshness evaluation reads
# materializations only, so a source, which is observed, would stay UNKNOWN
FRESHNESS_ASSETS = ("attempts", "report")


def changed_since_updated() -> dg.AutomationCondition:
    """True from the evaluation that saw the code version or an input's data version change, until the asset
    partition is next materialized."""
    inputs = dg.AutomationCondition.any_deps_match(dg.AutomationCondition.data_version_changed()).with_label(
        "an input has a new data version"
    )
    return (
        (dg.AutomationCondition.code_version_changed() | inputs)
        .since(dg.AutomationCondition.newly_updated())
        .with_label("changed since last materialized")
    )


def inputs_present() -> dg.AutomationCondition:
    """Every input has something to read: at least one of its partitions materialized (or observed). Unlike
    Dagster's ``any_deps_missing``, a table over some partitions of a partitioned input (the measurement over the
    judges' answers) runs once the partitions a run asked for exist (``cojudge materialize --condition blind``),
    and runs again as more arrive (their data versions are new). An input requested in the same evaluation does
    not count (no ``will_be_requested``): what reads it is requested at the next evaluation, once it exists, so
    a command that runs a selection never runs a reader of an input it left out."""
    return dg.AutomationCondition.all_deps_match(~dg.AutomationCondition.missing()).with_label("every input present")


# The steps a command leaves out (driver.py ``run_steps`` with a selection): what the evaluator requests of them
# is not going to run, so it holds nothing downstream (see UpstreamSettled). None: every request runs (a daemon).
LEFT_OUT: contextvars.ContextVar[Callable[[dg.AssetKey, str | None], bool] | None] = contextvars.ContextVar(
    "cojudge_left_out", default=None
)


# True while ``cojudge materialize`` evaluates (:func:`evaluate`): a command retries a failed step when asked, the
# daemon backs off (:class:`FailureBackoff`)
COMMAND: contextvars.ContextVar[bool] = contextvars.ContextVar("cojudge_command", default=False)

# the failures the code raised (a step that raises, a run that cannot start its resources), which the next run meets
# again unless something changed; a run failed from outside (run monitoring: its worker is gone; a start timeout)
# carries no reason or START_TIMEOUT, and is requested again at once
REPEATING_FAILURES = frozenset({"STEP_FAILURE", "RUN_EXCEPTION", "JOB_INITIALIZATION_FAILURE"})
BACKOFF_S = 300  # the first wait after such a failure; doubled with each failure in a row, at most a day
MAX_BACKOFF_S = 24 * 3600


def backoff_s(failures: int) -> float:
    """The wait after ``failures`` failed runs in a row (the first: :data:`BACKOFF_S`), at most a day."""
    return float(min(BACKOFF_S * 2 ** max(failures - 1, 0), MAX_BACKOFF_S))


class FailureBackoff(dg.AutomationCondition):
    """False for the partitions whose latest run failed in a way that repeats (:data:`REPEATING_FAILURES`) less
    than :func:`backoff_s` of the failures in a row ago; true for the others, and always under a command
    (:data:`COMMAND`).

    ``missing`` stays true after a failed run, so without this a partition whose step raises every time (a key
    the provider refuses, a budget stop, a bug) was requested again at every evaluation of the automation sensor:
    a run every 30 s, for ever (issue 37). A run failed by run monitoring (its worker died) is requested again at
    once, as before: that is how a deployment recovers a killed worker with no operator. A fix (a judges-file
    edit, a code change, a data fix) is picked up when the backoff ends, or at once by ``cojudge materialize``.
    Placed last in :func:`materialize_condition`, so it looks only at the partitions about to be requested."""

    @property
    def name(self) -> str:
        return "not failing again within its backoff"

    def evaluate(self, context: dg.AutomationContext) -> dg.AutomationResult:
        if COMMAND.get() or context.candidate_subset.is_empty:
            return dg.AutomationResult(context, true_subset=context.candidate_subset)
        view, key = context.asset_graph_view, context.key
        partitioned = context.candidate_subset.is_partitioned
        keys = context.candidate_subset.expensively_compute_partition_keys() if partitioned else {None}
        now = context.evaluation_time.timestamp()
        held = {p for p in keys if failed_within_backoff(view.instance, key, p, now)}
        if not held:
            return dg.AutomationResult(context, true_subset=context.candidate_subset)
        if not partitioned:
            return dg.AutomationResult(context, true_subset=view.get_empty_subset(key=key))
        partitions_def = context.asset_graph.get(key).partitions_def
        held_keys = {p for p in held if p is not None}
        held_subset = view.get_subset_from_partition_keys(
            key=key, partitions_def=partitions_def, partition_keys=held_keys
        )
        return dg.AutomationResult(context, true_subset=context.candidate_subset.compute_difference(held_subset))


def failed_within_backoff(instance: dg.DagsterInstance, key: dg.AssetKey, partition: str | None, now: float) -> bool:
    """Whether the latest run planned to materialize ``key`` (its ``partition``) failed in a way that repeats, and
    ended less than its backoff ago (the backoff of the failed runs of that partition in a row)."""
    planned = instance.event_log_storage.get_latest_planned_materialization_info(key, partition)
    if planned is None:
        return False
    latest = instance.get_run_record_by_id(planned.run_id)
    if latest is None or not _repeating_failure(latest):
        return False
    tags = {"dagster/partition": partition} if partition is not None else {}
    failures = 0
    for record in instance.get_run_records(dg.RunsFilter(tags=tags), limit=50):  # newest first
        if key not in (record.dagster_run.asset_selection or ()):
            continue
        if not _repeating_failure(record):
            break
        failures += 1
    ended = latest.end_time or latest.update_timestamp.timestamp()
    return now - ended < backoff_s(failures)


def _repeating_failure(record: dg.RunRecord) -> bool:
    run = record.dagster_run
    return run.status == dg.DagsterRunStatus.FAILURE and run.tags.get("dagster/failure_reason") in REPEATING_FAILURES


class UpstreamSettled(dg.AutomationCondition):
    """True for the partitions of the asset that nothing upstream is about to change: no partition of an ancestor
    (its inputs, their inputs, and so on) that maps onto it is requested in this evaluation or materializing in a
    run in progress (queued runs included).

    Dagster's ``any_deps_in_progress`` looks at the direct inputs only, and nothing in Dagster holds a reader
    while an input is merely requested in a run of its own (a different partition: one run each). Without this,
    a reader of A and of C (A -> B -> C) ran when A changed and again when the change reached C, and
    ``perturbation_requests`` read the old mutants while their buckets were requested (issue 37). The moving
    partitions are carried down the graph through Dagster's partition mappings (``compute_child_subset``), so
    ``judge_requests[prefix12k]`` requested holds ``judge_outputs`` under prefix12k only. Evaluated in topological
    order, every ancestor's request of this evaluation is known when the asset is evaluated. A partition
    materialized after the event log snapshot the evaluation reads (its run ended during the evaluation) counts as
    moving too (its update may not be seen yet; the asset's own: :class:`SeenOwnUpdate`). The observable
    sources are left out (their observation is on a cron and marks no run as in progress), and so are the
    requests of steps a command leaves out (:data:`LEFT_OUT`)."""

    @property
    def name(self) -> str:
        return "nothing upstream requested or in progress"

    async def evaluate(self, context: dg.AutomationContext) -> dg.AutomationResult:  # type: ignore[override]
        view = context.asset_graph_view
        memo = _MOVING.setdefault(view, {})
        held = context.get_empty_subset()
        for parent in sorted(context.asset_graph.get(context.key).parent_keys - {context.key}):
            moving = await _moving(context, parent, memo)
            if not moving.is_empty:
                held = held.compute_union(view.compute_child_subset(context.key, moving))
        return dg.AutomationResult(context, true_subset=context.candidate_subset.compute_difference(held))


class SeenOwnUpdate(dg.AutomationCondition):
    """True for the partitions of the asset not materialized after the event log snapshot the evaluation reads.

    On the daemon, ``labels_saved`` and ``perturbation_metrics`` were requested again the tick their run ended: the
    run ended while the evaluation ran, after its newly-updated check and before its in-progress check, so it was
    neither in progress nor seen updated, and "changed since last updated" still held (issue 37). Placed after
    ``~in_progress()``: a run seen ended there wrote its materialization before it ended, so it is found here."""

    @property
    def name(self) -> str:
        return "its last update seen"

    def evaluate(self, context: dg.AutomationContext) -> dg.AutomationResult:
        updated = _updated_after_snapshot(context, context.key)
        return dg.AutomationResult(context, true_subset=context.candidate_subset.compute_difference(updated))


# per evaluation (one AssetGraphView each): the moving partitions of every asset seen so far
_MOVING: weakref.WeakKeyDictionary = weakref.WeakKeyDictionary()


async def _moving(context: dg.AutomationContext, key: dg.AssetKey, memo: dict):
    """The partitions of ``key`` that are requested in this evaluation (and run: :data:`LEFT_OUT`), in a run in
    progress, or downstream of such a partition of an ancestor."""
    if key in memo:
        return memo[key]
    view, graph = context.asset_graph_view, context.asset_graph
    node = graph.get(key)
    subset = view.get_empty_subset(key=key)
    if node.is_materializable:
        requested = context.request_subsets_by_key.get(key)
        if requested is not None and not requested.is_empty:
            subset = subset.compute_union(_kept(context, requested, key))
        running = await view.compute_run_in_progress_subset(key=key, from_subset=view.get_full_subset(key=key))
        subset = subset.compute_union(running).compute_union(_updated_after_snapshot(context, key))
    for parent in sorted(node.parent_keys - {key}):
        moving = await _moving(context, parent, memo)
        if not moving.is_empty:
            subset = subset.compute_union(view.compute_child_subset(key, moving))
    memo[key] = subset
    return subset


def updated_after(instance: dg.DagsterInstance, key: dg.AssetKey, storage_id: int) -> set[str | None]:
    """The partitions of ``key`` (None: the unpartitioned asset) materialized after event log id ``storage_id``."""
    records = instance.fetch_materializations(
        dg.AssetRecordsFilter(asset_key=key, after_storage_id=storage_id), limit=10_000
    ).records
    return {record.partition_key for record in records}


def _updated_after_snapshot(context: dg.AutomationContext, key: dg.AssetKey):
    """The partitions of ``key`` materialized after the event log snapshot the evaluation reads (a run that ended
    during the evaluation): empty when the snapshot has no id."""
    view = context.asset_graph_view
    snapshot = context.max_storage_id
    if snapshot is None:
        return view.get_empty_subset(key=key)
    found = updated_after(view.instance, key, snapshot)
    if not found:
        return view.get_empty_subset(key=key)
    partitions_def = context.asset_graph.get(key).partitions_def
    if partitions_def is None:
        return view.get_full_subset(key=key)
    keys = {p for p in found if p is not None} & set(partitions_def.get_partition_keys())
    return view.get_subset_from_partition_keys(key=key, partitions_def=partitions_def, partition_keys=keys)


def _kept(context: dg.AutomationContext, subset, key: dg.AssetKey):
    """The partitions of ``subset`` the caller runs (all of them, unless :data:`LEFT_OUT` says otherwise)."""
    left_out = LEFT_OUT.get()
    view = context.asset_graph_view
    if left_out is None:
        return subset
    if not subset.is_partitioned:
        return view.get_empty_subset(key=key) if left_out(key, None) else subset
    kept = {p for p in subset.expensively_compute_partition_keys() if not left_out(key, p)}
    partitions_def = context.asset_graph.get(key).partitions_def
    return view.get_subset_from_partition_keys(key=key, partitions_def=partitions_def, partition_keys=kept)


def materialize_condition() -> dg.AutomationCondition:
    """The condition of every materializable asset (see the module's docstring)."""
    return (
        (dg.AutomationCondition.missing() | changed_since_updated())
        & inputs_present()
        & UpstreamSettled()
        & ~dg.AutomationCondition.in_progress()
        & SeenOwnUpdate()
        & FailureBackoff()
    ).with_label("cojudge: missing or changed, inputs present, nothing upstream moving, not failing again")


def observe_condition(cron: str = DEFAULT_OBSERVE_CRON) -> dg.AutomationCondition:
    """The condition of the observable sources: observed when never observed, then at every tick of ``cron``."""
    return (
        (dg.AutomationCondition.missing() | dg.AutomationCondition.cron_tick_passed(cron))
        & ~dg.AutomationCondition.in_progress()
    ).with_label(f"observe: first, then {cron}")


class HoldsRows(dg.AutomationCondition):
    """True for the partitions that can hold rows (an imported judge's ``judge_outputs`` under a condition its
    source has no rows for cannot: it is never requested, so no run is spent on an empty partition)."""

    def __init__(self, keys: Iterable[str]):
        self.keys = frozenset(keys)

    @property
    def name(self) -> str:
        return "partition can hold rows"

    def evaluate(self, context: dg.AutomationContext) -> dg.AutomationResult:
        subset = context.candidate_subset.compute_intersection_with_partition_keys(self.keys)
        return dg.AutomationResult(context, true_subset=subset)


def freshness_policy(hours: float) -> dg.FreshnessPolicy:
    """Late (FAIL) when not materialized for ``hours``; a warning from three quarters of it."""
    return dg.FreshnessPolicy.time_window(fail_window=timedelta(hours=hours), warn_window=timedelta(hours=hours * 0.75))


def with_conditions(
    assets: Iterable, holding: dict[str, list[str]] | None = None, freshness: dg.FreshnessPolicy | None = None
) -> list:
    """The assets with :func:`materialize_condition` (sources are given theirs where they are defined); an asset
    of ``holding`` (name -> the partitions that can hold rows) is requested in those partitions only; with
    ``freshness``, :data:`FRESHNESS_ASSETS` carry that policy."""
    holding = holding or {}

    def condition_of(spec: dg.AssetSpec) -> dg.AssetSpec:
        name = spec.key.to_user_string()
        if freshness is not None and name in FRESHNESS_ASSETS:
            spec = spec.replace_attributes(freshness_policy=freshness)
        keys = holding.get(name)
        if keys is None:
            return spec.replace_attributes(automation_condition=materialize_condition())
        return spec.replace_attributes(automation_condition=materialize_condition() & HoldsRows(keys))

    return [
        asset.map_asset_specs(condition_of)
        if isinstance(asset, dg.AssetsDefinition) and asset.is_materializable
        else asset
        for asset in assets
    ]


def partitions_with_rows(spec: dg.AssetSpec) -> set[str] | None:
    """The partitions of an asset that can hold rows, read from its condition (None: all of them)."""
    stack = [spec.automation_condition] if spec.automation_condition is not None else []
    while stack:
        condition = stack.pop()
        if isinstance(condition, HoldsRows):
            return set(condition.keys)
        stack.extend(condition.children)
    return None


def automation_sensor(interval_s: int = DEFAULT_AUTOMATION_INTERVAL_S) -> dg.AutomationConditionSensorDefinition:
    """The sensor that evaluates every asset's condition in a deployment (running by default), at most every
    ``interval_s`` seconds ($COJUDGE_AUTOMATION_INTERVAL_S)."""
    with warnings.catch_warnings():  # the sources' observation: a beta parameter of the selection
        warnings.simplefilter("ignore", dg.BetaWarning)
        target = dg.AssetSelection.all(include_sources=True)
    return dg.AutomationConditionSensorDefinition(
        AUTOMATION_SENSOR,
        target=target,
        default_status=dg.DefaultSensorStatus.RUNNING,
        use_user_code_server=True,  # HoldsRows is Python of this package: evaluated in the code server
        # one run per requested partition, never one backfill for several: each run carries its partition's tags,
        # the judge's provider among them (defs/partitions.py JudgePartitions), which the run queue limits
        emit_backfills=False,
        minimum_interval_seconds=interval_s,
        description="Keeps every asset fresh: requests what is missing or changed (defs/automation.py).",
    )


def observe_sources(defs: dg.Definitions, instance: dg.DagsterInstance, run_config: dict | None = None):
    """Record the source assets' current data versions (the corpus, each judge of the judges file) with one
    run of :data:`OBSERVE_JOB`, as the UI's "Observe sources" does; the run's result (its failure events say
    why it failed)."""
    from cojudge_assets.defs.live import LIVE_LOGGER

    job = defs.resolve_job_def(OBSERVE_JOB)
    # the command's one logger (defs/live.py): the run's messages stay in its event log, a failure is in its result
    config: dict = {"loggers": {LIVE_LOGGER: {}}}
    resources = (run_config or {}).get("resources") or {}
    if resources:
        config["resources"] = {name: value for name, value in resources.items() if name in job.required_resource_keys}
    return job.execute_in_process(instance=instance, run_config=config, raise_on_error=False)


class CursorFile:
    """The command's evaluation cursor, kept in the instance's folder (``<DAGSTER_HOME>/cojudge/``)."""

    def __init__(self, instance: dg.DagsterInstance):
        self.path = Path(instance.root_directory) / "cojudge" / "automation_cursor.json"

    def load(self):
        try:
            return dg.deserialize_value(self.path.read_text(encoding="utf-8"))
        except (OSError, ValueError):  # none yet, or one an older Dagster wrote: start from the present
            return None

    def save(self, cursor) -> None:
        self.path.parent.mkdir(parents=True, exist_ok=True)
        partial = self.path.with_suffix(".partial")
        partial.write_text(dg.serialize_value(cursor), encoding="utf-8")
        partial.replace(self.path)


@dataclass
class Requested:
    """What one evaluation requested: the partitions (None: unpartitioned) of each materializable asset."""

    partitions: dict[dg.AssetKey, set[str | None]] = field(default_factory=dict)
    cursor: object = None

    def __bool__(self) -> bool:
        return any(self.partitions.values())

    def pairs(self) -> set[tuple[str, str | None]]:
        return {(key.to_user_string(), p) for key, found in self.partitions.items() for p in found}


def evaluate(
    defs: dg.Definitions,
    instance: dg.DagsterInstance,
    cursor=None,
    left_out: Callable[[dg.AssetKey, str | None], bool] | None = None,
) -> Requested:
    """Dagster's evaluation of every asset's automation condition against the instance: what it requests of the
    materializable assets (a source it would observe is left out: the command observes them first).
    ``left_out(key, partition)``: the requested steps the caller will not run, which hold nothing downstream."""

    def run():
        LEFT_OUT.set(left_out)
        COMMAND.set(True)
        with warnings.catch_warnings():  # Dagster's own default selection (sources included) is a beta parameter
            warnings.simplefilter("ignore", dg.BetaWarning)
            return dg.evaluate_automation_conditions(defs=defs, instance=instance, cursor=cursor)

    # The evaluator runs its own event loop (asyncio.run), which refuses to start inside a running one: called
    # from a thread that has one (a notebook, an async test harness, a loop a timed-out call left marked as
    # running), it evaluates in a worker thread of its own instead.
    # In a context of its own, so that LEFT_OUT is this call's only.
    try:
        asyncio.get_running_loop()
    except RuntimeError:
        result = contextvars.copy_context().run(run)
    else:
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
            result = pool.submit(contextvars.copy_context().run, run).result()
    found = {key: set(result.get_requested_partitions(key)) for key in materializable_keys(defs)}
    return Requested({key: keys for key, keys in found.items() if keys}, result.cursor)


def materializable_keys(defs: dg.Definitions) -> set[dg.AssetKey]:
    """The keys of the Definitions' materializable assets (the observable sources are not)."""
    return {
        key
        for asset in defs.assets or []
        if isinstance(asset, dg.AssetsDefinition) and asset.is_materializable
        for key in asset.keys
    }
