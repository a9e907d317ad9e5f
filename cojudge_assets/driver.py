"""The run loop of ``cojudge materialize``: what Dagster's evaluator requests, run step by step.

It decides nothing itself: :func:`run_steps` asks Dagster's evaluator what the assets' automation conditions
request (defs/automation.py) and runs that, round after round, until nothing is requested; one run per step, a
step being one partition of one of the Definitions' asset jobs. The command (cli.py) checks the invocation, holds
the locks and prints the summary; this module runs the steps and counts what they did (:class:`StepsOutcome`).
"""

from __future__ import annotations

import functools
import gc
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import ParamSpec, TypeVar


def open_instance(home: Path):
    """The Dagster instance whose runs and lineage ``dagster dev`` shows: the one of ``home`` (its dagster.yaml),
    opened from the folder itself, so the command never sets DAGSTER_HOME in its own environment."""
    import dagster as dg

    return dg.DagsterInstance.from_config(str(home))


def close_orphaned_runs(instance) -> list[str]:
    """Mark failed the runs of ``instance`` still recorded as starting or started. The command holds the
    instance's lock (core/locks.py), so no other run of it is alive: such a run's process was killed (kill -9, a
    lost machine) and never recorded its end. Left open, Dagster's automation would treat its assets as in
    progress and never request them again (what a deployment's run monitoring does for the daemon)."""
    import dagster as dg

    alive = [dg.DagsterRunStatus.STARTING, dg.DagsterRunStatus.STARTED, dg.DagsterRunStatus.CANCELING]
    closed = []
    for run in instance.get_runs(filters=dg.RunsFilter(statuses=alive)):
        instance.report_run_failed(run, message="cojudge: the run's process is gone (killed); closed by the next run")
        closed.append(run.run_id)
    if closed:
        print(f"closed {len(closed)} run(s) a killed process left open: {', '.join(r[:8] for r in closed)}", flush=True)
    return closed


@dataclass
class StepsOutcome:
    """What :func:`run_steps` did: truthy when every run succeeded."""

    ok: bool = True
    ran: int = 0
    skipped: int = 0
    requests_sent: int = 0
    provider_calls: int = 0  # of requests_sent, those to hosted providers (not local judges)
    refusal: str = ""  # why a step refused to replace stored tables (an input that yielded nothing)
    stops: list = field(default_factory=list)  # judging partitions stopped at a budget or with batches pending
    failed_runs: int = 0  # runs that failed, stopped ones included
    waiting: int = 0  # steps not run because an input was never materialized (outside the selection)
    missing_inputs: set = field(default_factory=set)  # those inputs (asset names)
    materialized: set = field(default_factory=set)  # (asset, partition) materialized by this command
    rounds: list = field(default_factory=list)  # what Dagster's evaluator requested in the selection, per round
    # the value of every run's cojudge/run tag: the partitions of one command share one run budget (judges/estimate.py)
    run_key: str = field(default_factory=lambda: uuid.uuid4().hex)

    def __bool__(self) -> bool:
        return self.ok

    @property
    def only_stopped(self) -> bool:
        """Every failed run was a judging partition that stopped resumably (a budget, pending batches)."""
        return not self.ok and bool(self.stops) and len(self.stops) >= self.failed_runs

    def line(self) -> str:
        if not self.ok:
            return (
                f"FAILED after {self.ran} run(s); {self.requests_sent} request(s) sent to judges, "
                f"{self.provider_calls} of them to hosted providers"
            )
        if self.ran == 0 and not self.waiting:
            return (
                f"nothing changed: all {self.skipped} steps were up to date; "
                f"{self.requests_sent} requests sent to judges"
            )
        if self.ran == 0:
            return (
                f"nothing ran: {self.skipped} step(s) up to date, {self.waiting} waiting for an input never "
                f"materialized; {self.requests_sent} requests sent to judges"
            )
        waiting = f", {self.waiting} not run (an input never materialized)" if self.waiting else ""
        return (
            f"ran {self.ran} step(s), {self.skipped} up to date{waiting}; "
            f"{self.requests_sent} request(s) sent to judges, {self.provider_calls} of them to hosted providers"
        )

    def incomplete(self) -> str:
        """Why the selection is not done although nothing failed (empty when it is): steps it selected that could
        not run because an input outside it was never materialized. The command exits 3 on it, never "success":
        the tables those steps write do not exist."""
        if not self.waiting:
            return ""
        inputs = ", ".join(sorted(self.missing_inputs)) or "their inputs"
        return (
            f"{self.waiting} selected step(s) did not run: {inputs} never materialized and not selected; "
            "add them to --select, or run without --select"
        )


class SelectionError(ValueError):
    """A name in ``--select`` that is no job, group or asset of the Definitions."""


def _materializable(defs) -> list:
    """The materializable asset keys of the Definitions (not the observable sources), upstream first; among keys
    neither of which is upstream of the other, in name order, so that every process lists them alike (a set's order
    follows the process's string hash seed: the steps the driver and bench/step_memory.py group would differ from
    run to run)."""
    import graphlib

    from cojudge_assets.defs.automation import materializable_keys

    keys = sorted(materializable_keys(defs), key=lambda key: key.to_user_string())
    deps = {spec.key: {d.asset_key for d in spec.deps} for spec in defs.resolve_all_asset_specs()}
    # graphlib emits the ready nodes in the order they were added: the keys in name order, each node's
    # predecessors too
    graph = {key: sorted(deps.get(key, set()) & set(keys), key=lambda dep: dep.to_user_string()) for key in keys}
    return list(graphlib.TopologicalSorter(graph).static_order())


def step_jobs(defs) -> dict:
    """The step each materializable asset runs in: the Definitions' asset job with the fewest assets that holds it
    (the jobs are named selections, definitions.py; an asset they all leave out is a step of its own)."""
    import dagster as dg

    from cojudge_assets.defs.automation import OBSERVE_JOB

    graph = defs.resolve_asset_graph()
    members = {}
    for job in defs.jobs or []:
        selection = getattr(job, "selection", None)
        if job.name == OBSERVE_JOB or not isinstance(selection, dg.AssetSelection):
            continue
        members[job.name] = set(selection.resolve(graph))
    found = {}
    for key in _materializable(defs):
        holding = sorted((len(keys), name) for name, keys in members.items() if key in keys)
        found[key] = holding[0][1] if holding else key.to_user_string()
    return found


def resolve_selection(defs, names: tuple[str, ...] | None) -> set:
    """The materializable assets ``names`` select: each a job of the Definitions (its selection, with the sharded
    jobs that are part of it: definitions.py ``PART_OF``), a group or an asset; raises SelectionError naming the
    first name that is none of them."""
    import dagster as dg

    from cojudge_assets.definitions import PART_OF

    keys = set(_materializable(defs))
    if not names:
        return keys
    graph = defs.resolve_asset_graph()
    jobs = {job.name: job for job in defs.jobs or [] if isinstance(getattr(job, "selection", None), dg.AssetSelection)}
    groups = {spec.group_name for spec in defs.resolve_all_asset_specs()}
    chosen = set()
    for name in names:
        if name in jobs:
            chosen |= set(jobs[name].selection.resolve(graph))
            for part in jobs.values():
                if (part.metadata or {}).get(PART_OF) == name:
                    chosen |= set(part.selection.resolve(graph))
        elif name in groups:
            chosen |= set(dg.AssetSelection.groups(name).resolve(graph))
        elif dg.AssetKey(name) in keys:
            # an asset made with others by one function (attempts, prompt_logs and quarantine) runs with them:
            # Dagster cannot run part of a multi-asset that does not allow subsetting
            chosen |= set(dg.AssetSelection.assets(name).required_multi_asset_neighbors().resolve(graph))
        else:
            known = sorted(jobs) + sorted(groups)
            raise SelectionError(f"{name}: no job, group or asset of that name (e.g. {', '.join(known)})")
    return chosen & keys


def _steps_in_order(steps: dict, step_of: dict, order: list) -> list:
    """The steps (step name, partition) -> asset keys, upstream steps first."""
    rank = {key: i for i, key in enumerate(order)}
    return sorted(steps, key=lambda step: (min(rank[k] for k in steps[step]), step[0], step[1] or ""))


P = ParamSpec("P")
R = TypeVar("R")


def _frozen_heap(fn: Callable[P, R]) -> Callable[P, R]:
    """``fn`` with what exists before it (the Definitions, a caller's heap) frozen out of the garbage collector, so
    the collection after each step scans only what the runs made: in a process holding a large heap (a test
    session's), a full collection per step took seconds each."""

    @functools.wraps(fn)
    def frozen(*args: P.args, **kwargs: P.kwargs) -> R:
        gc.freeze()
        try:
            return fn(*args, **kwargs)
        finally:
            gc.unfreeze()

    return frozen


@_frozen_heap
def run_steps(
    defs,
    instance,
    run_config: dict | None = None,
    *,
    judges: list[str] | None = None,
    conditions: list[str] | None = None,
    jobs: tuple[str, ...] | None = None,
    echo=None,
    force: bool = False,
    rebuild: Callable[[], object] | None = None,
) -> StepsOutcome:
    """Materialize what Dagster's evaluator requests, step by step, until it requests nothing.

    The source assets (the corpus, the judges file) are observed first. Then each round asks Dagster's
    evaluator (``dg.evaluate_automation_conditions`` over the assets' automation conditions, defs/automation.py)
    what is requested, and runs it: one run per step, a step being one partition of one of the Definitions'
    asset jobs (the requested assets of that job in that partition), upstream steps first. It stops when the
    evaluator requests nothing in the selection (``jobs``: names of jobs, groups or assets; ``judges`` and
    ``conditions`` restrict the partitions) or at the first failed run. ``force`` first runs every selected step
    once, whatever the evaluator says. The evaluator's cursor is kept in the instance's folder after every round
    whose runs all succeeded.

    ``rebuild`` (a picklable function that builds these Definitions again, the command's ``--process-per-partition``):
    each partition of a partitioned step runs in a child process of its own (:func:`_in_child`), from a fresh heap.
    Run one after another in this process, a partition after the first peaks somewhat higher: what the earlier
    ones left in the allocators' free lists (+87 MB at 10^6 judge_outputs, once the first run's outputs were no
    longer kept, :func:`_release_outputs`; docs/benchmarks.md "Partitions one after another in one process").
    """
    from cojudge_assets.defs.automation import CursorFile, evaluate, observe_sources, partitions_with_rows
    from cojudge_assets.defs.live import LIVE_LOGGER, end_line
    from cojudge_assets.defs.partitions import dims, matches

    if rebuild is not None and (instance.is_ephemeral or instance.root_directory is None):
        raise ValueError("a partition's child process opens the instance from its folder: this one has none")
    printer = echo or functools.partial(print, flush=True)

    def say(line: str) -> None:  # a step's line ends the live progress line first (defs/live.py)
        end_line()
        printer(line)

    echo = say

    # the runs' one Dagster logger: the live line of the running step's progress (defs/live.py); the rest of a
    # run's log is in its event log (dagster dev shows it), and a failure's message is in the step's line
    run_config = {"loggers": {LIVE_LOGGER: {}}, **(run_config or {})}
    outcome = StepsOutcome()
    selected = resolve_selection(defs, jobs)
    step_of = step_jobs(defs)
    order = _materializable(defs)
    partitions = {spec.key: spec.partitions_def for spec in defs.resolve_all_asset_specs()}
    holding = {spec.key: partitions_with_rows(spec) for spec in defs.resolve_all_asset_specs()}
    wanted = {"condition": conditions, "judge": judges}

    def in_selection(key, partition) -> bool:
        rows = holding[key]
        return (
            key in selected
            and matches(dims(partitions[key], partition), wanted)
            and (rows is None or str(partition) in rows)
        )

    every: dict = {}  # every selected step and the assets it holds
    for key in selected:
        for partition in [None] if partitions[key] is None else partitions[key].get_partition_keys():
            if in_selection(key, partition):
                every.setdefault((step_of[key], None if partition is None else str(partition)), set()).add(key)
    observed = observe_sources(defs, instance, run_config)
    if not observed.success:  # a failed observation is a failed step: never "success" after it
        echo(_summary("observe_sources", observed, None))
        outcome.ok = False
        return outcome
    store = CursorFile(instance)
    cursor = store.load()
    done: set = set()
    rounds = [every] if force else []
    limit = len(order) + 2  # a round runs at least one asset further down the graph, or the same again
    for _ in range(limit):
        if rounds:
            todo = rounds.pop()
            found = None
        else:
            found = evaluate(defs, instance, cursor, left_out=lambda key, p: not in_selection(key, p))
            todo = _requested_steps(found.partitions, in_selection, step_of)
            if not todo:
                store.save(found.cursor)
                break
            outcome.rounds.append({(k.to_user_string(), p) for (_, p), keys in todo.items() for k in keys})
        for step in _steps_in_order(todo, step_of, order):
            if not _run_step(defs, instance, run_config, step, todo[step], outcome, echo, rebuild=rebuild):
                return outcome
            # a run's frames sit in reference cycles (Dagster's in-process result captures every output): free them
            # before the next run starts, or each partition's tables stay resident under the next one
            gc.collect()
            done.add(step)
        if found is not None:
            cursor = found.cursor
            store.save(cursor)
    else:
        echo(f"stopped: Dagster still requests runs after {limit} rounds (an asset that never materializes?)")
        outcome.ok = False
        return outcome
    upstream = {spec.key: {d.asset_key for d in spec.deps} for spec in defs.resolve_all_asset_specs()}
    _report_not_run(instance, every, done, step_of, order, partitions, outcome, echo, upstream)
    return outcome


def _requested_steps(requested, in_selection, step_of) -> dict:
    """The evaluator's requested asset partitions inside the selection, grouped by step (job, partition)."""
    todo: dict = {}
    for key, keys in requested.items():
        for partition in keys:
            if in_selection(key, partition):
                part = None if partition is None else str(partition)
                todo.setdefault((step_of[key], part), set()).add(key)
    return todo


def _report_not_run(instance, every, done, step_of, order, partitions, outcome, echo, upstream=None) -> None:
    """A line for each selected step no round ran: up to date, or waiting for an input never materialized (named:
    the step's inputs outside it that were never materialized, in any partition)."""
    materializable = set(order)
    for step in _steps_in_order({s: k for s, k in every.items() if s not in done}, step_of, order):
        name, partition = step
        absent = _missing(instance, every[step], partition, partitions)
        label = f"{name}{'[' + partition + ']' if partition else ''}"
        if absent:
            outcome.waiting += 1
            inputs = {dep for key in every[step] for dep in (upstream or {}).get(key, ())} - every[step]
            never = sorted(
                dep.to_user_string()
                for dep in inputs & materializable
                if instance.get_latest_materialization_event(dep) is None
            )
            outcome.missing_inputs |= set(never)
            why = f"its input(s) {', '.join(never)} never materialized" if never else "an input never materialized"
            echo(f"{label}: not run, {why} ({', '.join(absent)} missing)")
        else:
            outcome.skipped += 1
            echo(f"{label}: up to date, skipped")


def _missing(instance, keys, partition, partitions) -> list[str]:
    """The assets among ``keys`` with no materialization of ``partition`` in the instance."""
    absent = []
    for key in sorted(keys, key=lambda k: k.to_user_string()):
        if partitions[key] is None:
            present = instance.get_latest_materialization_event(key) is not None
        else:
            present = partition in instance.get_materialized_partitions(key)
        if not present:
            absent.append(key.to_user_string())
    return absent


def _run_step(
    defs, instance, run_config: dict, step: tuple, keys: set, outcome: StepsOutcome, echo, rebuild=None
) -> bool:
    """One run: the requested ``keys`` of one step's job in one partition; whether it succeeded. With ``rebuild``, a
    partition runs in a child process (:func:`_in_child`)."""
    name, partition = step
    job = _job(defs, name)
    label = f"{name}{'[' + partition + ']' if partition else ''}"
    from cojudge_assets.judges.estimate import RUN_TAG

    tags = run_tags(job, partition, defs.resources["corpus"], defs.resources["judges"]) | {RUN_TAG: outcome.run_key}
    from cojudge_assets.defs.live import heartbeat

    use = StepUse.start()
    with heartbeat(label):  # a line every 10 s the step's own progress does not cover (defs/live.py)
        if rebuild is not None and partition is not None:
            ran = _in_child(rebuild, Path(instance.root_directory), run_config, step, keys, tags)
        else:
            ran = _execute(job, instance, run_config, partition, keys, tags)
    use.stop()
    if ran.peak_mb is not None:  # the child's own peak: the run's memory, not this process's
        use.peak_mb = ran.peak_mb
    outcome.ran += 1
    outcome.requests_sent += ran.sent
    if tags.get("cojudge/provider") not in (None, "local", "imported"):
        outcome.provider_calls += ran.sent
    names = sorted(k.to_user_string() for k in keys)
    echo(ran.line(label, use) + f" [{', '.join(names[:4])}{', ...' if len(names) > 4 else ''}]")
    outcome.materialized |= {(n, partition) for n in names} if ran.success else set()
    if not ran.success:
        outcome.ok = False
        outcome.refusal = ran.refusal
        outcome.stops += ran.stops
        outcome.failed_runs += 1
    return ran.success


def _job(defs, name: str):
    job = defs.resolve_job_def(name) if name in {j.name for j in defs.jobs or []} else None
    return job or defs.resolve_implicit_global_asset_job_def()  # an asset no job holds: the implicit asset job


@dataclass
class Ran:
    """What the driver keeps of one run (picklable: a child process returns it, :func:`_in_child`)."""

    success: bool
    run_id: str
    detail: str  # what the step line prints after the run's figures (_summary)
    sent: int = 0
    stops: list = field(default_factory=list)
    refusal: str = ""
    peak_mb: float | None = None  # set by a child process: its own peak

    @classmethod
    def of(cls, result) -> Ran:
        return cls(
            success=result.success,
            run_id=result.run_id,
            detail=_detail(result),
            sent=_requests_sent(result),
            stops=_stops(result),
            refusal=_refusal(result),
        )

    def line(self, label: str, use: StepUse) -> str:
        return f"{label}: {'ok' if self.success else 'FAILED'} (run {self.run_id[:8]}, {use}){self.detail}"


def _execute(job, instance, run_config: dict, partition: str | None, keys: set, tags: dict) -> Ran:
    result = job.execute_in_process(
        instance=instance,
        run_config=_for_job(run_config, job),
        partition_key=partition,
        asset_selection=sorted(keys, key=lambda k: k.to_user_string()),
        raise_on_error=False,
        tags=tags,
    )
    ran = Ran.of(result)
    _release_outputs(result)
    return ran


def _release_outputs(result) -> None:
    """Drop the outputs ``execute_in_process`` kept for the result (its output capture: every asset's value, a
    partition's whole frame). The driver reads none of them, and one run's stay alive for good: Dagster's records
    compile their constructor on first use with the caller's frame in its namespace (dagster_shared/record
    ``update_from_frame``), and the first run of a process is the caller then, so its step context, with the
    capture, is kept by the compiled function. At 10^6 that was the first partition's 228 MB judge_outputs frame
    under every later partition (issue 33, bench/partition_growth.py). The capture is the result's private
    mapping: a Dagster without it keeps everything as before."""
    outputs = getattr(result, "_output_capture", None)
    if isinstance(outputs, dict):
        outputs.clear()


def _in_child(rebuild, home: Path, run_config: dict, step: tuple, keys: set, tags: dict) -> Ran:
    """One run in a child process (spawned: nothing of this process's heap is in it) that builds the Definitions
    with ``rebuild`` and opens the instance of ``home``; it exits when the run ends, and its memory with it. The
    command's locks stay held: core/locks.py lets a holder's child through. A child that dies (killed, out of
    memory) is a failed run whose line says so; Dagster's run it leaves open is closed by the next command
    (:func:`close_orphaned_runs`)."""
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor
    from concurrent.futures.process import BrokenProcessPool

    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        try:
            return pool.submit(_child_run, rebuild, home, run_config, step, keys, tags).result()
        except BrokenProcessPool as exc:
            label = f"{step[0]}[{step[1]}]"
            return Ran(False, "--------", f"\n  the child process of {label} died before its run ended ({exc})")


def _child_run(rebuild, home: Path, run_config: dict, step: tuple, keys: set, tags: dict) -> Ran:
    """:func:`_in_child`'s child: the run, and its own peak memory. ``rebuild`` sets the child's logging up as the
    command's (cli.py ``_child_definitions``)."""
    defs = rebuild()
    reset = _reset_peak()
    ran = _execute(_job(defs, step[0]), open_instance(home), run_config, step[1], keys, tags)
    ran.peak_mb = _peak_mb() if reset else None
    return ran


def run_tags(job, partition_key: str | None, corpus=None, judges=None) -> dict[str, str]:
    """``cojudge/provider`` on runs of one judge's partition: a run coordinator limits concurrent runs per
    provider with it (tag_concurrency_limits, docs/operations.md "Beyond one machine"). ``corpus`` and ``judges``: the
    Definitions' resources (the judges file by default: judges/config.py ``judges_file``)."""
    from cojudge_assets.defs.partitions import dims
    from cojudge_assets.defs.resources import JudgesResource
    from cojudge_assets.judges.config import judges_file

    judge = dims(job.partitions_def, partition_key).judge
    if judge is None:
        return {}
    return {"cojudge/provider": (judges or JudgesResource(path=str(judges_file()))).find(judge, corpus).provider}


def _for_job(run_config: dict, job) -> dict:
    """The run config without the ``ops`` entries of other jobs (one config can then set any asset's settings)."""
    ops = run_config.get("ops")
    if not ops:
        return run_config
    return {**run_config, "ops": {name: value for name, value in ops.items() if job.graph.has_node_named(name)}}


def _requests_sent(result) -> int:
    """Requests the judges' servers received in one run (``requests_sent``: re-asks and retries included, a
    request that failed before it was sent not; ``judged_now``, rows judged, where a step does not say): from its
    materializations, and from a partition that failed (its dg.Failure carries the same counts)."""

    def count(metadata) -> int:
        key = "requests_sent" if "requests_sent" in metadata else "judged_now"
        return int(metadata[key].value) if key in metadata else 0

    sent = sum(count(event.materialization.metadata) for event in result.get_asset_materialization_events())
    for event in result.all_events:
        failure = event.step_failure_data.user_failure_data if event.is_step_failure else None
        if failure is not None:
            sent += count(failure.metadata or {})
    return sent


def _stops(result) -> list[str]:
    """The messages of judging partitions that stopped resumably: at a budget (metadata ``budget_stop``) or with
    batches pending at the provider (``batches_pending``); defs/judging/assets.py."""
    stops = []
    for event in result.all_events:
        failure = event.step_failure_data.user_failure_data if event.is_step_failure else None
        if failure is None:
            continue
        metadata = failure.metadata or {}
        pending = metadata.get("batches_pending")
        if "budget_stop" in metadata or (pending is not None and pending.value):
            stops.append(failure.description or "stopped")
    return stops


def _refusal(result) -> str:
    """The message of a step that refused to replace stored tables (a dg.Failure marked REFUSED), or ""."""
    from cojudge_assets.defs.resources import REFUSED

    for event in result.all_events:
        failure = event.step_failure_data.user_failure_data if event.is_step_failure else None
        if failure is not None and REFUSED in (failure.metadata or {}):
            return failure.description or "refused"
    return ""


@dataclass
class StepUse:
    """One run's wall time, CPU time and peak resident memory, as its step line prints them.

    CPU is user + system time of this process and of the processes it waited for in the run (the sandbox's
    compilers and programs): the figure that does not move with the machine's load. The peak is this process's
    own (VmHWM, which the run resets at its start through /proc/self/clear_refs, Linux 4.0+); the sandbox's
    processes are not in it. Where the peak cannot be reset (no procfs), it is not given."""

    wall_s: float = 0.0
    cpu_s: float = 0.0
    peak_mb: float | None = None
    _started: tuple[float, float] = (0.0, 0.0)

    @classmethod
    def start(cls) -> StepUse:
        use = cls(peak_mb=0.0 if _reset_peak() else None)
        use._started = (time.perf_counter(), _cpu_seconds())
        return use

    def stop(self) -> None:
        self.wall_s = time.perf_counter() - self._started[0]
        self.cpu_s = _cpu_seconds() - self._started[1]
        if self.peak_mb is not None:
            self.peak_mb = _peak_mb()

    def __str__(self) -> str:
        peak = "" if self.peak_mb is None else f", peak {self.peak_mb:,.0f} MB"
        return f"{self.wall_s:.1f} s, cpu {self.cpu_s:.1f} s{peak}"


def _cpu_seconds() -> float:
    import resource

    own, children = resource.getrusage(resource.RUSAGE_SELF), resource.getrusage(resource.RUSAGE_CHILDREN)
    return own.ru_utime + own.ru_stime + children.ru_utime + children.ru_stime


def _reset_peak() -> bool:
    """Reset this process's peak resident set (VmHWM) to its current size; whether it could."""
    try:
        Path("/proc/self/clear_refs").write_text("5")
    except OSError:
        return False
    return _peak_mb() is not None


def _peak_mb() -> float | None:
    try:
        status = Path("/proc/self/status").read_text()
    except OSError:
        return None
    for line in status.splitlines():
        if line.startswith("VmHWM:"):
            return int(line.split()[1]) / 1024
    return None


def _summary(step: str, result, use: StepUse | None) -> str:
    return Ran.of(result).line(step, use or StepUse())


def _detail(result) -> str:
    """What a run's line says after its figures: each judge step's counts, and each failure's message."""
    line = ""
    for event in result.get_asset_materialization_events():
        meta = event.materialization.metadata
        if "imported_now" in meta:  # an imported judge: read from its file, nothing sent
            line += f"; imported {meta['imported_now'].value} (valid {meta['valid_rows'].value})"
        elif "judged_now" in meta:
            line += f"; judged now {meta['judged_now'].value}, from cache {meta['cached'].value}"
    if not result.success:  # each failure's message: a step's, or a resource's that could not start
        shown: set[str] = set()
        for event in result.all_events:
            error = getattr(event.event_specific_data, "error", None)
            message = error.message.strip()[:2000] if error is not None and error.message else ""
            if message and message not in shown and (event.is_step_failure or event.is_resource_init_failure):
                shown.add(message)
                line += f"\n  {message}"
    return line
