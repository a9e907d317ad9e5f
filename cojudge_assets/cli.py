"""``cojudge``: the command-line entry point.

``cojudge materialize`` materializes the whole asset graph on the configured
corpus (the shipped demo corpus by default) into the DuckDB file, as runs of
the local Dagster instance (``dagster_home/`` unless DAGSTER_HOME is set), so
the runs and their lineage show in ``dagster dev``: one run for the ingest
group, one per partition of the partitioned assets (see :func:`run_steps`).

Before any step, :func:`preflight` checks the invocation in a second or two and
touches nothing (core/preflight.py); the command then holds the DAGSTER_HOME's
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
from dataclasses import dataclass
from pathlib import Path

from cojudge_assets.core.constants import CONDITIONS

PROJECT_ROOT = Path(__file__).resolve().parents[1]
JUDGING_JOBS = ("judge_outputs_job", "perturbation_outputs_job")  # the jobs that send requests to judges


def _instance(home: Path):
    """The Dagster instance whose runs and lineage ``dagster dev`` shows: the one of ``home`` (its dagster.yaml),
    opened from the folder itself, so the command never sets DAGSTER_HOME in its own environment."""
    import dagster as dg

    return dg.DagsterInstance.from_config(str(home))


@dataclass
class StepsOutcome:
    """What :func:`run_steps` did: truthy when every run succeeded."""

    ok: bool = True
    ran: int = 0
    skipped: int = 0
    requests_sent: int = 0
    provider_calls: int = 0  # of requests_sent, those to hosted providers (not local judges)
    refusal: str = ""  # why a step refused to replace stored tables (an input that yielded nothing)

    def __bool__(self) -> bool:
        return self.ok

    def line(self) -> str:
        if not self.ok:
            return (
                f"FAILED after {self.ran} run(s); {self.requests_sent} request(s) sent to judges, "
                f"{self.provider_calls} of them to hosted providers"
            )
        if self.ran == 0:
            return (
                f"nothing changed: all {self.skipped} steps were up to date; "
                f"{self.requests_sent} requests sent to judges"
            )
        return (
            f"ran {self.ran} step(s), {self.skipped} up to date; "
            f"{self.requests_sent} request(s) sent to judges, {self.provider_calls} of them to hosted providers"
        )


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
    """Materialize the graph in steps, one Dagster run per job and partition, in dependency order.

    Dagster runs one partition of one partitions definition per run (NOTES-deps trap 5),
    so: the ingest group in one run, then each condition of ``judge_requests``, then each
    condition x judge of ``judge_outputs``, and so on (definitions.JOB_ORDER).
    ``judges``/``conditions`` restrict the partitions. The source assets (the corpus, the judges file) are
    observed first; a step whose assets are all up to date (cojudge_assets/freshness.py) is skipped unless
    ``force``.
    Stops at the first failed run.
    """
    from cojudge_assets.definitions import JOB_ORDER
    from cojudge_assets.defs.partitions import dims, matches
    from cojudge_assets.defs.resources import database_path
    from cojudge_assets.freshness import observe_sources_run, outdated_assets

    echo = echo or functools.partial(print, flush=True)
    # Dagster's console logger at INFO: the judging progress and failures, not every engine event
    run_config = {"loggers": {"console": {"config": {"log_level": "INFO"}}}, **(run_config or {})}
    database = str(database_path(defs.resources["duckdb"]))
    outcome = StepsOutcome()
    observed = observe_sources_run(defs, instance, run_config)
    if not observed.success:  # a failed observation is a failed step: never "success" after it
        echo(_summary("observe_sources", observed, 0.0))
        outcome.ok = False
        return outcome
    names = {job.name for job in defs.jobs}
    for name in jobs or JOB_ORDER:
        if name not in names:
            if jobs:  # asked for by name: say why nothing ran
                echo(f"{name}: not in this code location (no enabled judge), skipped")
            continue
        job = defs.resolve_job_def(name)
        keys: list[str | None] = [None]
        if job.partitions_def is not None:
            keys = [
                str(key)
                for key in job.partitions_def.get_partition_keys()
                if matches(dims(job.partitions_def, str(key)), {"condition": conditions, "judge": judges})
            ]
        for key in keys:
            step = f"{name}{'[' + key + ']' if key else ''}"
            outdated = [] if force else outdated_assets(defs, instance, name, key, database)
            if not force and not outdated:
                outcome.skipped += 1
                echo(f"{step}: up to date, skipped")
                continue
            started = time.perf_counter()
            result = job.execute_in_process(
                instance=instance,
                run_config=_for_job(run_config, job),
                partition_key=key,
                raise_on_error=False,
                tags=run_tags(job, key, defs.resources["corpus"], defs.resources["judges"]),
            )
            seconds = time.perf_counter() - started
            outcome.ran += 1
            sent = _requests_sent(result)
            outcome.requests_sent += sent
            provider = run_tags(job, key, defs.resources["corpus"], defs.resources["judges"]).get("cojudge/provider")
            if provider not in (None, "local", "imported"):
                outcome.provider_calls += sent
            reason = f" [{', '.join(outdated[:4])}{', ...' if len(outdated) > 4 else ''}]" if outdated else ""
            echo(_summary(step, result, seconds) + reason)
            if not result.success:
                outcome.ok = False
                outcome.refusal = _refusal(result)
                return outcome
    return outcome


def run_tags(job, partition_key: str | None, corpus=None, judges=None) -> dict[str, str]:
    """``cojudge/provider`` on runs of one judge's partition: a run coordinator limits concurrent runs per
    provider with it (tag_concurrency_limits, README "Beyond one machine"). ``corpus`` and ``judges``: the
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
    create: tuple[Path, ...]  # folders to create before the run (the DuckDB file's, DAGSTER_HOME)
    corpus_config: bool  # pass the corpus settings as run config (a flag set them)


def preflight(args: argparse.Namespace, environ=None) -> Plan:
    """Every check that needs no Dagster, in about a second; raises PreflightError (one line) and touches nothing.

    The layout is known, the corpus a readable folder with input of its layout (unless ``--allow-empty``), the
    DuckDB file's folder exists or can be created and no other process has the file open (unless ``--wait``),
    DAGSTER_HOME likewise, the judges file parses and every value is in bounds, every
    ``--judge`` names an enabled judge, and every judge that will run has its key variable set.
    """
    from cojudge_assets.core.preflight import (
        DEFAULT_CORPUS,
        DEFAULT_DUCKDB,
        DUCKDB_VARIABLE,
        Flag,
        PreflightError,
        check_corpus,
        check_duckdb,
        check_home,
        check_layout,
        corpus_input_problem,
        known_jobs,
        known_layouts,
        missing_keys,
        one_line,
        stored_rows,
    )

    def layout_judge_names(corpus: Path, layout: str) -> list[str]:
        if layout != "icescore":  # the only layout that brings judges; read its file names only
            return []
        from cojudge_assets.core.ingest.icescore import icescore_judges

        return icescore_judges(corpus)

    environ = os.environ if environ is None else environ
    corpus_flag = (
        Flag("--corpus", args.corpus)
        if args.corpus
        else Flag("--corpus (default: the demo corpus)", str(DEFAULT_CORPUS))
    )
    corpus = check_corpus(corpus_flag)
    if args.duckdb:
        database_flag = Flag("--duckdb", args.duckdb)
    elif environ.get(DUCKDB_VARIABLE):
        database_flag = Flag(DUCKDB_VARIABLE, environ[DUCKDB_VARIABLE])
    else:
        database_flag = Flag("--duckdb (default)", str(DEFAULT_DUCKDB))
    database, database_folder = check_duckdb(database_flag)
    if not args.wait:  # another process has the file open (a notebook, in any mode): refused before anything else
        from cojudge_assets.core.locks import DatabaseBusy, wait_for_duckdb

        try:
            wait_for_duckdb(database)
        except DatabaseBusy as exc:
            raise PreflightError(str(exc)) from None
    # imported after the cheap checks: the judges' models import polars (seconds on a busy machine)
    from cojudge_assets.judges.config import JUDGES_VARIABLE, JudgesConfigError, judges_file, load_judges

    home_flag = Flag("DAGSTER_HOME", environ.get("DAGSTER_HOME") or str(PROJECT_ROOT / "dagster_home"))
    home, home_folder = check_home(home_flag)
    judges_flag = (
        Flag("--judges-file", args.judges_file)
        if args.judges_file
        else Flag(
            JUDGES_VARIABLE if environ.get(JUDGES_VARIABLE) else "--judges-file (default)", str(judges_file(environ))
        )
    )
    judges_path = Path(judges_flag.value).expanduser().resolve()
    try:
        specs = load_judges(judges_path)
    except JudgesConfigError as exc:  # one line per violation, each naming the judge and field
        raise PreflightError("\n".join(f"{judges_flag.name}: {one_line(line)}" for line in exc.lines)) from None
    enabled = [s for s in specs if s.enabled]
    layout = check_layout(Flag("--layout", args.layout or "pages"), known_layouts())
    brought = layout_judge_names(corpus, layout)  # the imported judges a corpus layout brings (ICE-Score)
    unknown = [name for name in args.judge or [] if name not in {s.name for s in enabled} | set(brought)]
    if unknown:
        raise PreflightError(
            f"--judge {unknown[0]}: not an enabled judge of {judges_path} nor one the corpus "
            f"brings (enabled: {', '.join([s.name for s in enabled] + brought) or 'none'})"
        )
    jobs = args.jobs.split(",") if args.jobs else None
    unknown = [name for name in jobs or () if name not in known_jobs()]
    if unknown:
        raise PreflightError(f"--jobs {unknown[0]}: no such job (expected some of {', '.join(known_jobs())})")
    judging = jobs is None or bool(set(jobs) & set(JUDGING_JOBS))
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
        create=tuple(f for f in (database_folder, home_folder) if f is not None),
        corpus_config=bool(args.corpus or args.layout or args.allow_empty),
    )


def _refused(message: str) -> int:
    for line in message.splitlines() or [""]:
        print(f"cojudge: {line}", file=sys.stderr, flush=True)
    return 2


def materialize(args: argparse.Namespace) -> int:
    from cojudge_assets.core.locks import DatabaseBusy, LockHeld, hold, hold_duckdb, home_lock_path, wait_for_duckdb
    from cojudge_assets.core.preflight import PreflightError

    try:
        plan = preflight(args)
    except PreflightError as exc:
        return _refused(str(exc))
    for folder in plan.create:
        folder.mkdir(parents=True, exist_ok=True)
    wait_s = float("inf") if args.wait else 0.0
    echo = functools.partial(print, flush=True)
    try:
        # DAGSTER_HOME first, then the DuckDB file: every run takes them in this order, so --wait cannot deadlock
        with (
            hold(plan.home, home_lock_path(plan.home), wait_s=wait_s, echo=echo),
            hold_duckdb(plan.duckdb, wait_s=wait_s, echo=echo),
        ):
            wait_for_duckdb(plan.duckdb, wait_s=wait_s, echo=echo)  # --wait: until no other process has it open
            return _materialize(args, plan)
    except (LockHeld, DatabaseBusy) as exc:
        return _refused(str(exc))


def _materialize(args: argparse.Namespace, plan: Plan) -> int:
    from cojudge_assets.core.preflight import stored_rows
    from cojudge_assets.definitions import build_definitions

    jobs = tuple(args.jobs.split(",")) if args.jobs else None
    # the run's settings go in as arguments and run config, never through the environment
    defs = build_definitions(corpus=plan.corpus, layout=plan.layout, database=plan.duckdb, judges_path=plan.judges_file)
    run_config = {}
    if plan.corpus_config:
        run_config = {
            "resources": {
                "corpus": {
                    "config": {"path": str(plan.corpus), "layout": plan.layout, "allow_empty": bool(args.allow_empty)}
                }
            }
        }
    outcome = run_steps(
        defs,
        _instance(plan.home),
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
            from cojudge_assets.core.preflight import known_layouts

            return f"corpus layout, one of: {', '.join(known_layouts())} (default: pages)"
        return super()._expand_help(action)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cojudge", description="cojudge: LLM judges of code as instruments.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser(
        "materialize", help="materialize the whole asset graph into DuckDB", formatter_class=_HelpFormatter
    )
    m.add_argument("--corpus", help="corpus folder (default: the shipped demo corpus, data/demo)")
    m.add_argument("--layout", help="corpus layout (default: pages; the layouts are listed here in --help)")
    m.add_argument(
        "--duckdb",
        help="DuckDB file (default: $COJUDGE_DUCKDB or data/cojudge.duckdb); its folder is created if missing",
    )
    m.add_argument("--judges-file", help="judges config (default: $COJUDGE_JUDGES or data/judges.yaml)")
    m.add_argument("--judge", action="append", help="only this judge's partitions (repeatable)")
    m.add_argument(
        "--condition", action="append", choices=list(CONDITIONS), help="only this condition's partitions (repeatable)"
    )
    m.add_argument(
        "--jobs",
        help="only these jobs, comma-separated, from: ingest, judge_requests_job, "
        "judge_outputs_job, measurement_job, mutants_job, perturbation_outputs_job, "
        "perturbation_metrics_job, dynamics_job, report_job",
    )
    m.add_argument(
        "--force", action="store_true", help="run every step even when Dagster's data versions say it is up to date"
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
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
