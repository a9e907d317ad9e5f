"""``cojudge``: the command-line entry point.

``cojudge materialize`` brings the asset graph up to date on the configured corpus
(the shipped demo corpus by default) in the DuckDB file, as runs of the local
Dagster instance (``./dagster_home`` unless DAGSTER_HOME is set), so the runs and
their lineage show in ``dagster dev``. It decides nothing itself: it asks Dagster's
evaluator what the assets' automation conditions request (defs/automation.py) and
runs that, round after round, until nothing is requested (driver.py :func:`run_steps`).

Before any step, :func:`preflight` checks the invocation in a second or two and
touches nothing (preflight.py, settings.py); the command then holds the DAGSTER_HOME's
and the DuckDB file's locks (core/locks.py) for the whole run. Exit codes: 0 every
step succeeded or was up to date (the source observation included), 1 a step failed, 3 incomplete: a selected
step could not run because an input outside ``--select`` was never materialized (named; nothing failed, but its
tables do not exist), 4 a judge stopped at its budget (judges/estimate.py; every stored row whole, the next run
continues), 5 batches still pending at a provider (judges/batch.py; the next run collects them), 2 refused: a
bad flag or variable (one line on stderr naming it; a judges file: one line per
violation), another run holding a lock or another process having the DuckDB file
open in any mode (naming its pid; ``--wait`` waits and says for what), or a
corpus that yields no attempts where ``--allow-empty`` was not given.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import os
import sys
from dataclasses import dataclass
from pathlib import Path

from cojudge_assets.core.constants import CONDITIONS
from cojudge_assets.driver import SelectionError, close_orphaned_runs, open_instance, resolve_selection, run_steps

# the names in --select whose assets send requests to judges (jobs, groups, assets): a run of none of them needs no key
JUDGING_NAMES: tuple[str, ...] = (
    *("judge_outputs_job", "perturbation_outputs_job"),  # jobs
    *("judging", "perturbation"),  # groups
    *("judge_outputs", "perturbation_outputs"),  # assets
)


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
    ``--judge`` names an enabled judge, every judge that will run has its key variable set and, unless
    ``--no-probe``, its ``api_base`` accepts a TCP connection (preflight.unreachable_judges).
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
        unreachable_judges,
    )
    from cojudge_assets.settings import resolve_settings, variable_problems

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
    # every COJUDGE_* variable the Definitions, the executor or the sandbox read (settings.py VARIABLES), the
    # deployed profile's settings among them: refused here, one line each, rather than as a traceback there
    if problems := variable_problems(environ):
        raise PreflightError("\n".join(problems))
    if settings.deployed:  # the deployed profile's database answers and takes this role, before anything is claimed
        from cojudge_assets.deployment import DeploymentError, reach_postgres

        try:
            reach_postgres(settings)
        except DeploymentError as exc:
            raise PreflightError(str(exc)) from None
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
    if not getattr(args, "no_probe", False) and (unreachable := unreachable_judges(selected)):
        raise PreflightError("\n".join(unreachable))  # one line per judge whose server does not answer
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
    from cojudge_assets.preflight import PreflightError

    try:
        plan = preflight(args)
    except PreflightError as exc:
        return _refused(str(exc))
    with quiet_libraries() as log_to:  # before the Definitions load: nothing a library logs reaches the terminal
        return _locked_run(args, plan, log_to)


def _locked_run(args: argparse.Namespace, plan: Plan, log_to) -> int:
    from cojudge_assets.core.locks import DatabaseBusy, LockHeld, hold, hold_duckdb, home_lock_path, wait_for_duckdb
    from cojudge_assets.definitions import build_definitions

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
    log_to(plan.home)
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


LIBRARY_LOG = Path("cojudge") / "libraries.log"  # under DAGSTER_HOME
LIBRARY_LOG_BYTES = 5 << 20  # then rotated once (libraries.log.1)


@contextlib.contextmanager
def quiet_libraries():
    """Python logging configured once for the command, so that no library's logging reaches its output (which is
    the step lines, the progress lines and the summary). Before, codebleu's first ``logging.warning`` called
    ``logging.basicConfig`` (the root logger had no handler), and from then on every record of every logger went
    to stderr: 263 ``DEBUG:dagster.automation_condition_tester`` lines in one run. The root logger gets a handler
    (so ``basicConfig`` never adds one) that holds the records (INFO and above) and Python warnings
    (``logging.captureWarnings``) until the caller names the DAGSTER_HOME (the value yielded, a function of the
    home); from then on they go to ``<home>/cojudge/libraries.log`` (rotated at 5 MiB), never to the terminal. On
    exit the handler is removed and warnings are shown as before (a test calls the command in process)."""
    import logging
    import logging.handlers

    root = logging.getLogger()
    level = root.level
    if root.getEffectiveLevel() > logging.WARNING:  # raised by a library or a caller: a warning is still kept
        root.setLevel(logging.WARNING)
    held = logging.handlers.MemoryHandler(capacity=10_000, flushLevel=logging.CRITICAL + 1, target=None)
    held.setLevel(logging.INFO)
    current: list[logging.Handler] = [held]
    root.addHandler(held)
    logging.captureWarnings(True)

    def to_file(home: Path) -> Path:
        path = home / LIBRARY_LOG
        path.parent.mkdir(parents=True, exist_ok=True)
        handler = logging.handlers.RotatingFileHandler(
            path, maxBytes=LIBRARY_LOG_BYTES, backupCount=1, encoding="utf-8"
        )
        handler.setLevel(logging.INFO)
        handler.setFormatter(logging.Formatter("%(asctime)s %(levelname)s %(name)s: %(message)s"))
        held.setTarget(handler)
        held.flush()
        root.addHandler(handler)
        root.removeHandler(held)
        current[0] = handler
        return path

    try:
        yield to_file
    finally:
        root.removeHandler(current[0])
        current[0].close()
        held.close()
        logging.captureWarnings(False)
        root.setLevel(level)


def _start_from_shipped(plan: Plan) -> None:
    """A DAGSTER_HOME without a dagster.yaml, created by this command or found, gets the shipped one (telemetry off,
    so no run prints Dagster's telemetry banner, nor "No dagster instance configuration file"; one run at a time,
    as the repository's dagster_home/); a home's own dagster.yaml is never replaced. A line names the shipped demo
    corpus or judges file when a run reads one (no ./data/demo or ./data/judges.yaml in the working folder:
    settings.py ``default_corpus``/``default_judges``)."""
    import shutil

    from cojudge_assets.settings import DEFAULT_CORPUS, DEFAULT_JUDGES, shipped

    if not (plan.home / "dagster.yaml").exists():
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


def _rebuild(plan: Plan):
    """The Definitions of ``plan`` built again, by a child process (picklable: driver.py ``_in_child``)."""
    return functools.partial(_child_definitions, plan)


def _child_definitions(plan: Plan):
    """In a partition's child process: the command's logging (:func:`quiet_libraries`, to the same log under the
    home, for the child's life), then the Definitions of ``plan``."""
    import contextlib

    from cojudge_assets.definitions import build_definitions

    log_to = contextlib.ExitStack().enter_context(quiet_libraries())  # never exited: the child ends with its run
    log_to(plan.home)
    return build_definitions(
        corpus=plan.corpus, layout=plan.layout, database=plan.duckdb, judges_path=plan.judges_file, cache=plan.cache
    )


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
    instance = open_instance(plan.home)
    close_orphaned_runs(instance)
    outcome = run_steps(
        defs,
        instance,
        run_config,
        judges=args.judge,
        conditions=args.condition,
        jobs=jobs,
        force=args.force,
        rebuild=_rebuild(plan) if args.process_per_partition else None,
    )
    print(outcome.line())
    if outcome.refusal:
        print(f"REFUSED: tables in {plan.duckdb}")
        return _refused(outcome.refusal)
    if outcome.only_stopped and any("stopped at the budget" in stop for stop in outcome.stops):
        print(f"STOPPED AT THE BUDGET: tables in {plan.duckdb}; every stored row is whole, the next run continues")
        return 4
    if outcome.only_stopped:
        print(f"BATCHES PENDING: tables in {plan.duckdb}; run the same command again to collect them")
        return 5
    if not outcome:
        print(f"FAILED: tables in {plan.duckdb}")
        return 1
    if incomplete := outcome.incomplete():  # a selection that could not run what it selected: never "success"
        print(f"INCOMPLETE: tables in {plan.duckdb}: {incomplete}")
        return 3
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

    from cojudge_assets.deployment import DeploymentError, instance_config, reach_postgres, write_instance_config
    from cojudge_assets.judges.config import JudgesConfigError, load_judges
    from cojudge_assets.settings import resolve_settings, variable_problems

    settings = resolve_settings(judges_file=args.judges_file)
    try:
        if problems := variable_problems(profile=False):  # the same refusals as the command's preflight
            raise DeploymentError("\n".join(problems))
        try:
            specs = [spec for spec in load_judges(Path(settings.judges_file.value)) if spec.enabled]
        except JudgesConfigError as exc:  # one line per violation, as the preflight prints them
            raise DeploymentError("\n".join(f"{settings.judges_file.name}: {line}" for line in exc.lines)) from None
        if args.check and settings.postgres_url.value:
            reach_postgres(settings)
        if args.home:
            try:
                path, kept, changed = write_instance_config(settings, specs, Path(args.home))
            except OSError as exc:
                raise DeploymentError(f"--home {args.home}: cannot write dagster.yaml there ({exc.strerror})") from None
            for line in changed:
                print(line)
            if kept is not None:
                print(f"merged into the existing dagster.yaml (its other keys kept); the previous file: {kept}")
            print(path)
        else:
            print(yaml.safe_dump(instance_config(settings, specs), sort_keys=False), end="")
    except DeploymentError as exc:
        for line in str(exc).splitlines():
            print(f"cojudge deployment config: {line}", file=sys.stderr)
        return 2
    return 0


def deployment_celery_config(args) -> int:
    """``cojudge deployment celery-config``: the Celery workers' config file (the executor's broker and backend,
    executors.py ``worker_config``), written with mode 600: the broker URL may hold a password."""
    import yaml

    from cojudge_assets.deployment import write_private
    from cojudge_assets.executors import BrokerError, worker_config

    try:
        path = write_private(Path(args.out), yaml.safe_dump(worker_config(), sort_keys=False))
    except BrokerError as exc:
        print(f"cojudge deployment celery-config: {exc}", file=sys.stderr)
        return 2
    except OSError as exc:
        print(f"cojudge deployment celery-config: --out {args.out}: cannot write it ({exc.strerror})", file=sys.stderr)
        return 2
    print(path)
    return 0


def estimate(args: argparse.Namespace) -> int:
    """``cojudge estimate``: what judging the stored requests would cost, per judge x condition; sends nothing and
    writes nothing (judges/estimate.py). Exit 0 with the figures, 2 refused (a judges file, a missing requests
    table, an unpriced hosted model: one line each)."""
    from cojudge_assets.judges.config import JudgesConfigError, enabled_judges, judges_file
    from cojudge_assets.judges.estimate import RequestsMissing, Unpriced, estimate_database
    from cojudge_assets.settings import DEFAULT_DUCKDB, DUCKDB_VARIABLE

    database = Path(args.duckdb or os.environ.get(DUCKDB_VARIABLE) or DEFAULT_DUCKDB)
    try:
        specs = [s for s in enabled_judges(Path(args.judges_file) if args.judges_file else judges_file()) if s.asked]
        if args.judge:
            unknown = sorted(set(args.judge) - {s.name for s in specs})
            if unknown:
                return _refused(f"--judge {', '.join(unknown)}: not an enabled judge of the judges file")
            specs = [s for s in specs if s.name in args.judge]
        estimates = estimate_database(database, specs, args.condition)
    except JudgesConfigError as exc:
        return _refused("\n".join(exc.lines))
    except (RequestsMissing, Unpriced) as exc:
        return _refused(str(exc))
    total = 0.0
    for item in estimates:
        print(item.line())
        total += item.charged_usd or 0.0
    sent = sum(e.to_send for e in estimates)
    print(f"estimate: {sent} requests to send, {total:.4f} USD at each judge's mode (nothing was sent)")
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
        "--process-per-partition",
        action="store_true",
        help="run each partition of a partitioned step in a child process of its own: a later partition's peak memory "
        "is then the first one's (run one after another in one process, each peaked higher; docs/benchmarks.md)",
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
    m.add_argument(
        "--no-probe",
        action="store_true",
        help="skip the check that every judge's api_base that will run accepts a connection (a TCP connect, "
        "3 s at most, before anything runs); for a server that starts after the command",
    )
    m.set_defaults(func=materialize)
    e = sub.add_parser(
        "estimate",
        help="what judging the stored requests would cost, per judge x condition (tokens, USD, price sources); "
        "sends nothing",
    )
    e.add_argument("--duckdb", help="DuckDB file (default: $COJUDGE_DUCKDB or ./data/cojudge.duckdb)")
    e.add_argument("--judges-file", help="judges config (default: $COJUDGE_JUDGES or ./data/judges.yaml)")
    e.add_argument("--judge", action="append", help="only this judge (repeatable)")
    e.add_argument("--condition", action="append", choices=list(CONDITIONS), help="only this condition (repeatable)")
    e.set_defaults(func=estimate)
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
    w = dsub.add_parser(
        "celery-config",
        help="write the Celery workers' config file (COJUDGE_CELERY_BROKER, COJUDGE_CELERY_BACKEND), mode 600",
    )
    w.add_argument("--out", default="celery.yaml", help="the file to write (default: ./celery.yaml, git-ignored)")
    w.set_defaults(func=deployment_celery_config)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
