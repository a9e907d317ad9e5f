"""``cojudge``: the command-line entry point.

``cojudge materialize`` brings the asset graph up to date on the configured corpus
(the shipped demo corpus by default) in the DuckDB file, as runs of the local
Dagster instance (``./dagster_home`` unless DAGSTER_HOME is set), so the runs and
their lineage show in ``dagster dev``. It decides nothing itself: it asks Dagster's
evaluator what the assets' automation conditions request (defs/automation.py) and
runs that, round after round, until nothing is requested (:func:`run_steps`).

Before any step, :func:`preflight` checks the invocation in a second or two and
touches nothing (preflight.py, settings.py); the command then holds the DAGSTER_HOME's
and the DuckDB file's locks (core/locks.py) for the whole run. Exit codes: 0 every
step succeeded (the source observation included), 1 a step failed, 2 refused: a
bad flag or variable (one line on stderr naming it; a judges file: one line per
violation), another run holding a lock or another process having the DuckDB file
open in any mode (naming its pid; ``--wait`` waits and says for what), or a
corpus that yields no attempts where ``--allow-empty`` was not given.
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from dataclasses import dataclass, field
from pathlib import Path

from cojudge_assets.core.constants import CONDITIONS

# the names in --select whose assets send requests to judges (jobs, groups, assets): a run of none of them needs no key
JUDGING_NAMES: tuple[str, ...] = (
    *("judge_outputs_job", "perturbation_outputs_job"),  # jobs
    *("judging", "perturbation"),  # groups
    *("judge_outputs", "perturbation_outputs"),  # assets
)


def _instance(home: Path):
    """The Dagster instance whose runs and lineage ``dagster dev`` shows: the one of ``home`` (its dagster.yaml),
    opened from the folder itself, so the command never sets DAGSTER_HOME in its own environment."""
    import dagster as dg

    return dg.DagsterInstance.from_config(str(home))


def _close_orphaned_runs(instance) -> list[str]:
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
    waiting: int = 0  # steps not run because an input was never materialized (outside the selection)
    materialized: set = field(default_factory=set)  # (asset, partition) materialized by this command
    rounds: list = field(default_factory=list)  # what Dagster's evaluator requested in the selection, per round

    def __bool__(self) -> bool:
        return self.ok

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
        return (
            f"ran {self.ran} step(s), {self.skipped} up to date; "
            f"{self.requests_sent} request(s) sent to judges, {self.provider_calls} of them to hosted providers"
        )


class SelectionError(ValueError):
    """A name in ``--select`` that is no job, group or asset of the Definitions."""


def _materializable(defs) -> list:
    """The materializable asset keys of the Definitions (not the observable sources), upstream first."""
    import graphlib

    from cojudge_assets.defs.automation import materializable_keys

    keys = materializable_keys(defs)
    deps = {spec.key: {d.asset_key for d in spec.deps} & keys for spec in defs.resolve_all_asset_specs()}
    return list(graphlib.TopologicalSorter({key: deps.get(key, set()) for key in keys}).static_order())


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
            chosen.add(dg.AssetKey(name))
        else:
            known = sorted(jobs) + sorted(groups)
            raise SelectionError(f"{name}: no job, group or asset of that name (e.g. {', '.join(known)})")
    return chosen & keys


def _steps_in_order(steps: dict, step_of: dict, order: list) -> list:
    """The steps (step name, partition) -> asset keys, upstream steps first."""
    rank = {key: i for i, key in enumerate(order)}
    return sorted(steps, key=lambda step: (min(rank[k] for k in steps[step]), step[0], step[1] or ""))


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
    """
    from cojudge_assets.defs.automation import CursorFile, evaluate, observe_sources, partitions_with_rows
    from cojudge_assets.defs.partitions import dims, matches

    echo = echo or functools.partial(print, flush=True)
    # Dagster's console logger at INFO: the judging progress and failures, not every engine event
    run_config = {"loggers": {"console": {"config": {"log_level": "INFO"}}}, **(run_config or {})}
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
        echo(_summary("observe_sources", observed, 0.0))
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
            found = evaluate(defs, instance, cursor)
            todo = _requested_steps(found.partitions, in_selection, step_of)
            if not todo:
                store.save(found.cursor)
                break
            outcome.rounds.append({(k.to_user_string(), p) for (_, p), keys in todo.items() for k in keys})
        for step in _steps_in_order(todo, step_of, order):
            if not _run_step(defs, instance, run_config, step, todo[step], outcome, echo):
                return outcome
            done.add(step)
        if found is not None:
            cursor = found.cursor
            store.save(cursor)
    else:
        echo(f"stopped: Dagster still requests runs after {limit} rounds (an asset that never materializes?)")
        outcome.ok = False
        return outcome
    _report_not_run(instance, every, done, step_of, order, partitions, outcome, echo)
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


def _report_not_run(instance, every, done, step_of, order, partitions, outcome, echo) -> None:
    """A line for each selected step no round ran: up to date, or waiting for an input never materialized."""
    for step in _steps_in_order({s: k for s, k in every.items() if s not in done}, step_of, order):
        name, partition = step
        absent = _missing(instance, every[step], partition, partitions)
        label = f"{name}{'[' + partition + ']' if partition else ''}"
        if absent:
            outcome.waiting += 1
            echo(f"{label}: skipped, waits for an input never materialized ({', '.join(absent)} missing)")
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


def _run_step(defs, instance, run_config: dict, step: tuple, keys: set, outcome: StepsOutcome, echo) -> bool:
    """One run: the requested ``keys`` of one step's job in one partition; whether it succeeded."""
    name, partition = step
    job = defs.resolve_job_def(name) if name in {j.name for j in defs.jobs or []} else None
    if job is None:  # an asset no job holds: run it through the implicit asset job
        job = defs.resolve_implicit_global_asset_job_def()
    label = f"{name}{'[' + partition + ']' if partition else ''}"
    tags = run_tags(job, partition, defs.resources["corpus"], defs.resources["judges"])
    started = time.perf_counter()
    result = job.execute_in_process(
        instance=instance,
        run_config=_for_job(run_config, job),
        partition_key=partition,
        asset_selection=sorted(keys, key=lambda k: k.to_user_string()),
        raise_on_error=False,
        tags=tags,
    )
    seconds = time.perf_counter() - started
    outcome.ran += 1
    sent = _requests_sent(result)
    outcome.requests_sent += sent
    if tags.get("cojudge/provider") not in (None, "local", "imported"):
        outcome.provider_calls += sent
    names = sorted(k.to_user_string() for k in keys)
    echo(_summary(label, result, seconds) + f" [{', '.join(names[:4])}{', ...' if len(names) > 4 else ''}]")
    outcome.materialized |= {(n, partition) for n in names} if result.success else set()
    if not result.success:
        outcome.ok = False
        outcome.refusal = _refusal(result)
    return result.success


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


def _refusal(result) -> str:
    """The message of a step that refused to replace stored tables (a dg.Failure marked REFUSED), or ""."""
    from cojudge_assets.defs.resources import REFUSED

    for event in result.all_events:
        failure = event.step_failure_data.user_failure_data if event.is_step_failure else None
        if failure is not None and REFUSED in (failure.metadata or {}):
            return failure.description or "refused"
    return ""


def _summary(step: str, result, seconds: float) -> str:
    events = result.get_asset_materialization_events()
    line = f"{step}: {'ok' if result.success else 'FAILED'} (run {result.run_id[:8]}, {seconds:.1f} s)"
    for event in events:
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


@dataclass
class Plan:
    """What the preflight checked and resolved: a run starts only from one of these."""

    corpus: Path
    layout: str
    duckdb: Path
    home: Path
    judges_file: Path
    cache: Path  # the contest judge's cache folder (settings.py), handed to core through the resource
    create: tuple[Path, ...]  # folders to create before the run (the DuckDB file's, DAGSTER_HOME)
    corpus_config: bool  # pass the corpus settings as run config (a flag set them)


def preflight(args: argparse.Namespace, environ=None) -> Plan:
    """Every check that needs no Dagster, in about a second; raises PreflightError (one line) and touches nothing.

    The layout is known, the corpus a readable folder with input of its layout (unless ``--allow-empty``), the
    DuckDB file's folder exists or can be created and no other process has the file open (unless ``--wait``),
    DAGSTER_HOME likewise, the judges file parses and every value is in bounds, every
    ``--judge`` names an enabled judge, and every judge that will run has its key variable set.
    """
    from cojudge_assets.judges.config import JudgesConfigError, load_judges
    from cojudge_assets.preflight import (
        Flag,
        PreflightError,
        check_corpus,
        check_duckdb,
        check_home,
        check_layout,
        corpus_input_problem,
        known_layouts,
        missing_keys,
        one_line,
        stored_rows,
    )
    from cojudge_assets.settings import resolve_settings

    def layout_judge_names(corpus: Path, layout: str) -> list[str]:
        if layout != "icescore":  # the only layout that brings judges; read its file names only
            return []
        from cojudge_assets.core.ingest.icescore import icescore_judges

        return icescore_judges(corpus)

    environ = os.environ if environ is None else environ
    settings = resolve_settings(
        corpus=args.corpus,
        layout=args.layout,
        duckdb=args.duckdb,
        judges_file=args.judges_file,
        cache=args.cache,
        environ=environ,
    )
    corpus_flag = Flag(settings.corpus.name, settings.corpus.value)
    corpus = check_corpus(corpus_flag)
    database, database_folder = check_duckdb(Flag(settings.duckdb.name, settings.duckdb.value))
    if not args.wait:  # another process has the file open (a notebook, in any mode): refused before anything else
        from cojudge_assets.core.locks import DatabaseBusy, wait_for_duckdb

        try:
            wait_for_duckdb(database)
        except DatabaseBusy as exc:
            raise PreflightError(str(exc)) from None
    home, home_folder = check_home(Flag(settings.home.name, settings.home.value))
    try:  # settings the Definitions read: refused here in one line rather than there
        settings.automation_interval_s()
        settings.shard_count()
    except ValueError as exc:
        raise PreflightError(str(exc)) from None
    if problems := settings.profile_problems():  # COJUDGE_PROFILE=deployed without its settings, and the like
        raise PreflightError("; ".join(problems))
    cache, _ = check_home(Flag(settings.cache.name, settings.cache.value))  # a writable folder, or creatable
    judges_flag = Flag(settings.judges_file.name, settings.judges_file.value)
    judges_path = Path(judges_flag.value).expanduser().resolve()
    try:
        specs = load_judges(judges_path)
    except JudgesConfigError as exc:  # one line per violation, each naming the judge and field
        raise PreflightError("\n".join(f"{judges_flag.name}: {one_line(line)}" for line in exc.lines)) from None
    enabled = [s for s in specs if s.enabled]
    layout = check_layout(Flag(settings.layout.name, settings.layout.value), known_layouts())
    brought = layout_judge_names(corpus, layout)  # the imported judges a corpus layout brings (ICE-Score)
    unknown = [name for name in args.judge or [] if name not in {s.name for s in enabled} | set(brought)]
    if unknown:
        raise PreflightError(
            f"--judge {unknown[0]}: not an enabled judge of {judges_path} nor one the corpus "
            f"brings (enabled: {', '.join([s.name for s in enabled] + brought) or 'none'})"
        )
    jobs = _selection(args)
    judging = jobs is None or bool(set(jobs) & set(JUDGING_NAMES))
    selected = [s for s in enabled if judging and (not args.judge or s.name in args.judge)]
    for judge, variable in missing_keys(selected, environ)[:1]:
        raise PreflightError(
            f"{variable} is not set: judge {judge} is enabled in {judges_path} and reads its key "
            f"from it (export {variable}, or set enabled: false)"
        )
    if layout == "progsnap2":  # a main table without a required column: refused naming the file and column
        from cojudge_assets.core.ingest.progsnap2 import main_table_problem

        if problem := main_table_problem(corpus):
            raise PreflightError(f"{corpus_flag.name}: {problem}")
    empty = corpus_input_problem(corpus, layout)
    if empty and not args.allow_empty:
        held = stored_rows(database, "attempts")
        stake = (
            f"{database} holds {held} attempts that this run would replace with nothing"
            if held
            else "a run would succeed with no attempts"
        )
        raise PreflightError(f"{corpus_flag.name}: {empty}; {stake} (pass --allow-empty if you mean it)")
    return Plan(
        corpus=corpus,
        layout=layout,
        duckdb=database,
        home=home,
        judges_file=judges_path,
        cache=cache,
        create=tuple(f for f in (database_folder, home_folder) if f is not None),
        corpus_config=bool(args.corpus or args.layout or args.allow_empty),
    )


def _refused(message: str) -> int:
    for line in message.splitlines() or [""]:
        print(f"cojudge: {line}", file=sys.stderr, flush=True)
    return 2


def materialize(args: argparse.Namespace) -> int:
    from cojudge_assets.core.locks import DatabaseBusy, LockHeld, hold, hold_duckdb, home_lock_path, wait_for_duckdb
    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.preflight import PreflightError

    try:
        plan = preflight(args)
    except PreflightError as exc:
        return _refused(str(exc))
    # the run's settings go in as arguments and run config, never through the environment
    defs = build_definitions(
        corpus=plan.corpus, layout=plan.layout, database=plan.duckdb, judges_path=plan.judges_file, cache=plan.cache
    )
    try:
        resolve_selection(defs, _selection(args))
    except SelectionError as exc:
        return _refused(f"{_selection_flag(args)} {exc}")
    for folder in plan.create:
        folder.mkdir(parents=True, exist_ok=True)
    _start_from_shipped(plan)
    wait_s = float("inf") if args.wait else 0.0
    echo = functools.partial(print, flush=True)
    try:
        # DAGSTER_HOME first, then the DuckDB file: every run takes them in this order, so --wait cannot deadlock
        with (
            hold(plan.home, home_lock_path(plan.home), wait_s=wait_s, echo=echo),
            hold_duckdb(plan.duckdb, wait_s=wait_s, echo=echo),
        ):
            wait_for_duckdb(plan.duckdb, wait_s=wait_s, echo=echo)  # --wait: until no other process has it open
            return _materialize(args, plan, defs)
    except (LockHeld, DatabaseBusy) as exc:
        return _refused(str(exc))


def _start_from_shipped(plan: Plan) -> None:
    """A DAGSTER_HOME this command created gets the shipped dagster.yaml (telemetry off, one run at a time, as the
    repository's dagster_home/); a line names the shipped demo corpus or judges file when a run reads one (no
    ./data/demo or ./data/judges.yaml in the working folder: settings.py ``default_corpus``/``default_judges``)."""
    import shutil

    from cojudge_assets.settings import DEFAULT_CORPUS, DEFAULT_JUDGES, shipped

    if plan.home in plan.create and not (plan.home / "dagster.yaml").exists():
        shutil.copyfile(shipped("dagster.yaml"), plan.home / "dagster.yaml")
    for line, path, name, local in (
        (
            "corpus: the demo corpus cojudge ships, {} (read only; --corpus names another)",
            plan.corpus,
            "demo",
            DEFAULT_CORPUS,
        ),
        (
            "judges: the default judges file cojudge ships, {} (read only; copy it to ./data/judges.yaml to change the "
            "judges)",
            plan.judges_file,
            "judges.yaml",
            DEFAULT_JUDGES,
        ),
    ):
        if path == shipped(name).resolve() != local.resolve():
            print(line.format(path), flush=True)


def _selection(args: argparse.Namespace) -> tuple[str, ...] | None:
    """The names of ``--select`` (and its older spelling ``--jobs``), or None: everything."""
    names = [name.strip() for value in (args.select, args.jobs) if value for name in value.split(",") if name.strip()]
    return tuple(names) or None


def _selection_flag(args: argparse.Namespace) -> str:
    return "--select" if args.select else "--jobs"


def _materialize(args: argparse.Namespace, plan: Plan, defs) -> int:
    from cojudge_assets.preflight import stored_rows

    jobs = _selection(args)
    run_config = {}
    if plan.corpus_config:
        run_config = {
            "resources": {
                "corpus": {
                    "config": {"path": str(plan.corpus), "layout": plan.layout, "allow_empty": bool(args.allow_empty)}
                }
            }
        }
    instance = _instance(plan.home)
    _close_orphaned_runs(instance)
    outcome = run_steps(
        defs,
        instance,
        run_config,
        judges=args.judge,
        conditions=args.condition,
        jobs=jobs,
        force=args.force,
    )
    print(outcome.line())
    if outcome.refusal:
        print(f"REFUSED: tables in {plan.duckdb}")
        return _refused(outcome.refusal)
    if not outcome:
        print(f"FAILED: tables in {plan.duckdb}")
        return 1
    attempts = stored_rows(plan.duckdb, "attempts")
    held = f" ({attempts} attempts)" if attempts is not None else ""
    print(f"success: tables in {plan.duckdb}{held}")
    return 0


class _HelpFormatter(argparse.HelpFormatter):
    """Lists the corpus layouts (core/ingest/corpus.py LAYOUTS) in --help."""

    def _expand_help(self, action: argparse.Action) -> str:
        if action.dest == "layout":
            from cojudge_assets.preflight import known_layouts

            return f"corpus layout, one of: {', '.join(known_layouts())} (default: pages)"
        return super()._expand_help(action)


def deployment_config(args) -> int:
    """``cojudge deployment config``: the instance's dagster.yaml from the settings, or a refusal naming the
    setting (exit 2)."""
    import yaml

    from cojudge_assets.deployment import DeploymentError, instance_config, write_instance_config
    from cojudge_assets.judges.config import JudgesConfigError, load_judges
    from cojudge_assets.settings import libpq_url, resolve_settings

    settings = resolve_settings(judges_file=args.judges_file)
    try:
        try:
            specs = [spec for spec in load_judges(Path(settings.judges_file.value)) if spec.enabled]
        except JudgesConfigError as exc:
            raise DeploymentError(f"{settings.judges_file.name}: {exc}") from None
        if args.check and settings.postgres_url.value:
            from cojudge_assets.judges.postgres_store import StoreUnreachable, connect

            try:
                connect(libpq_url(settings.postgres_url.value)).close()
            except StoreUnreachable as exc:
                raise DeploymentError(str(exc)) from None
        if args.home:
            try:
                path, kept = write_instance_config(settings, specs, Path(args.home))
            except OSError as exc:
                raise DeploymentError(f"--home {args.home}: cannot write dagster.yaml there ({exc.strerror})") from None
            if kept is not None:
                print(f"the previous dagster.yaml differed: kept as {kept}")
            print(path)
        else:
            print(yaml.safe_dump(instance_config(settings, specs), sort_keys=False), end="")
    except DeploymentError as exc:
        print(f"cojudge deployment config: {exc}", file=sys.stderr)
        return 2
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cojudge", description="cojudge: LLM judges of code as instruments.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser(
        "materialize", help="materialize the whole asset graph into DuckDB", formatter_class=_HelpFormatter
    )
    m.add_argument(
        "--corpus",
        help="corpus folder (default: $COJUDGE_CORPUS, else ./data/demo, else the demo corpus cojudge ships)",
    )
    m.add_argument("--layout", help="corpus layout (default: $COJUDGE_LAYOUT or pages; listed here in --help)")
    m.add_argument(
        "--duckdb",
        help="DuckDB file (default: $COJUDGE_DUCKDB or ./data/cojudge.duckdb); its folder is created if missing",
    )
    m.add_argument(
        "--judges-file",
        help="judges config (default: $COJUDGE_JUDGES, else ./data/judges.yaml, else the default one cojudge ships)",
    )
    m.add_argument(
        "--cache",
        help="the contest judge's cache folder: compiled programs and results "
        "(default: $COJUDGE_CACHE, else $XDG_CACHE_HOME/cojudge, else ~/.cache/cojudge)",
    )
    m.add_argument("--judge", action="append", help="only this judge's partitions (repeatable)")
    m.add_argument(
        "--condition", action="append", choices=list(CONDITIONS), help="only this condition's partitions (repeatable)"
    )
    m.add_argument(
        "--select",
        help="only these assets, comma-separated: asset names, group names (ingest, judging, measurement, ...) "
        "or the names of the code location's jobs (dagster dev lists them); default: everything",
    )
    m.add_argument("--jobs", help="the older spelling of --select (job names)")
    m.add_argument(
        "--force",
        action="store_true",
        help="run every selected step once, then whatever Dagster's evaluator still requests",
    )
    m.add_argument(
        "--allow-empty",
        action="store_true",
        help="run even when the corpus yields no attempts (replacing stored tables with empty ones)",
    )
    m.add_argument(
        "--wait",
        action="store_true",
        help="wait for another run holding the DuckDB file or DAGSTER_HOME instead of failing at once",
    )
    m.set_defaults(func=materialize)
    d = sub.add_parser("deployment", help="the deployed profile (docs/operations.md, Runbook)")
    dsub = d.add_subparsers(dest="action", required=True)
    c = dsub.add_parser(
        "config",
        help="print the Dagster instance's dagster.yaml for the deployed profile (COJUDGE_PROFILE=deployed, "
        "COJUDGE_POSTGRES_URL, COJUDGE_TABLES_URI, COJUDGE_PROVIDER_LIMITS), or write it into --home",
    )
    c.add_argument("--judges-file", help="judges config (default: $COJUDGE_JUDGES or ./data/judges.yaml)")
    c.add_argument("--home", help="write dagster.yaml into this folder (the instance's DAGSTER_HOME)")
    c.add_argument("--check", action="store_true", help="also connect to Postgres (refused within 5 s)")
    c.set_defaults(func=deployment_config)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
