"""``cojudge``: the command-line entry point.

``cojudge materialize`` materializes the whole asset graph on the configured
corpus (the shipped demo corpus by default) into the DuckDB file, as runs of
the local Dagster instance (``dagster_home/`` unless DAGSTER_HOME is set), so
the runs and their lineage show in ``dagster dev``: one run for the ingest
group, one per partition of the partitioned assets (see :func:`run_steps`).
"""

from __future__ import annotations

import argparse
import functools
import os
import sys
import time
from dataclasses import dataclass
from pathlib import Path

PROJECT_ROOT = Path(__file__).resolve().parents[1]


def _instance():
    import dagster as dg

    os.environ.setdefault("DAGSTER_HOME", str(PROJECT_ROOT / "dagster_home"))
    Path(os.environ["DAGSTER_HOME"]).mkdir(parents=True, exist_ok=True)
    return dg.DagsterInstance.get()


@dataclass
class StepsOutcome:
    """What :func:`run_steps` did: truthy when every run succeeded."""

    ok: bool = True
    ran: int = 0
    skipped: int = 0
    requests_sent: int = 0

    def __bool__(self) -> bool:
        return self.ok

    def line(self) -> str:
        if not self.ok:
            return f"FAILED after {self.ran} run(s); {self.requests_sent} request(s) sent to judges"
        if self.ran == 0:
            return (f"nothing changed: all {self.skipped} steps were up to date; "
                    f"{self.requests_sent} requests sent to judges")
        return (f"ran {self.ran} step(s), {self.skipped} up to date; "
                f"{self.requests_sent} request(s) sent to judges")


def run_steps(defs, instance, run_config: dict | None = None, *, judges: list[str] | None = None,
              conditions: list[str] | None = None, jobs: tuple[str, ...] | None = None, echo=None,
              force: bool = False) -> StepsOutcome:
    """Materialize the graph in steps, one Dagster run per job and partition, in dependency order.

    Dagster runs one partition of one partitions definition per run (NOTES-deps trap 5),
    so: the ingest group in one run, then each condition of ``judge_requests``, then each
    condition x judge of ``judge_outputs``, and so on (definitions.JOB_ORDER).
    ``judges``/``conditions`` restrict the partitions. The corpus is observed first; a step
    whose assets are all up to date (cojudge_assets/freshness.py) is skipped unless ``force``.
    Stops at the first failed run.
    """
    from cojudge_assets.definitions import JOB_ORDER
    from cojudge_assets.freshness import observe_corpus, outdated_assets

    echo = echo or functools.partial(print, flush=True)
    # Dagster's console logger at INFO: the judging progress and failures, not every engine event
    run_config = {"loggers": {"console": {"config": {"log_level": "INFO"}}}, **(run_config or {})}
    database = defs.resources["duckdb"].database
    outcome = StepsOutcome()
    observe_corpus(defs, instance, run_config)
    names = {job.name for job in defs.jobs}
    for name in jobs or JOB_ORDER:
        if name not in names:
            continue
        job = defs.resolve_job_def(name)
        keys: list[str | None] = [None]
        if job.partitions_def is not None:
            keys = []
            for key in job.partitions_def.get_partition_keys():
                dims = _dimensions(job, str(key))
                if conditions and "condition" in dims and dims["condition"] not in conditions:
                    continue
                if judges and "judge" in dims and dims["judge"] not in judges:
                    continue
                keys.append(str(key))
        for key in keys:
            step = f"{name}{'[' + key + ']' if key else ''}"
            outdated = [] if force else outdated_assets(defs, instance, name, key, database)
            if not force and not outdated:
                outcome.skipped += 1
                echo(f"{step}: up to date, skipped")
                continue
            started = time.perf_counter()
            result = job.execute_in_process(instance=instance, run_config=_for_job(run_config, job),
                                            partition_key=key, raise_on_error=False, tags=run_tags(job, key, defs.resources["corpus"]))
            seconds = time.perf_counter() - started
            outcome.ran += 1
            outcome.requests_sent += _requests_sent(result)
            reason = f" [{', '.join(outdated[:4])}{', ...' if len(outdated) > 4 else ''}]" if outdated else ""
            echo(_summary(step, result, seconds) + reason)
            if not result.success:
                outcome.ok = False
                return outcome
    return outcome


def run_tags(job, partition_key: str | None, corpus=None) -> dict[str, str]:
    """``cojudge/provider`` on runs of one judge's partition: a run coordinator limits concurrent runs per
    provider with it (tag_concurrency_limits, README "Beyond one machine")."""
    from cojudge_assets.judges.config import find_judge

    if partition_key is None or job.partitions_def is None:
        return {}
    dims = _dimensions(job, partition_key)
    if "judge" not in dims:
        return {}
    spec = find_judge(dims["judge"], corpus.root(), corpus.layout) if corpus else find_judge(dims["judge"])
    return {"cojudge/provider": spec.provider}


def _dimensions(job, partition_key: str) -> dict[str, str]:
    """{dimension: value} of one partition key of the job (a single-dimension job names its dimension in a tag)."""
    import dagster as dg

    from cojudge_assets.definitions import PARTITION_DIMENSION

    if isinstance(job.partitions_def, dg.MultiPartitionsDefinition):
        return dict(job.partitions_def.get_partition_key_from_str(partition_key).keys_by_dimension)
    return {job.tags[PARTITION_DIMENSION]: partition_key}


def _for_job(run_config: dict, job) -> dict:
    """The run config without the ``ops`` entries of other jobs (one config can then set any asset's settings)."""
    ops = run_config.get("ops")
    if not ops:
        return run_config
    return {**run_config, "ops": {name: value for name, value in ops.items() if job.graph.has_node_named(name)}}


def _requests_sent(result) -> int:
    """Requests sent to judges by one run: from its materializations, and from a partition that failed (its
    dg.Failure carries the same counts)."""
    sent = sum(int(event.materialization.metadata["judged_now"].value)
               for event in result.get_asset_materialization_events()
               if "judged_now" in event.materialization.metadata)
    for event in result.all_events:
        failure = event.step_failure_data.user_failure_data if event.is_step_failure else None
        if failure is not None and "judged_now" in (failure.metadata or {}):
            sent += int(failure.metadata["judged_now"].value)
    return sent


def _summary(step: str, result, seconds: float) -> str:
    events = result.get_asset_materialization_events()
    line = f"{step}: {'ok' if result.success else 'FAILED'} (run {result.run_id[:8]}, {seconds:.1f} s)"
    for event in events:
        meta = event.materialization.metadata
        if "judged_now" in meta:
            line += f"; judged now {meta['judged_now'].value}, from cache {meta['cached'].value}"
    if not result.success:
        for event in result.all_events:
            if event.is_step_failure:
                line += f"\n  {event.event_specific_data.error.message.strip()[:2000]}"
    return line


def materialize(args: argparse.Namespace) -> int:
    if args.duckdb:
        os.environ["COJUDGE_DUCKDB"] = str(Path(args.duckdb).resolve())
    if args.judges_file:
        os.environ["COJUDGE_JUDGES"] = str(Path(args.judges_file).resolve())
    from cojudge_assets.definitions import build_definitions
    from cojudge_assets.defs.resources import duckdb_path

    defs = build_definitions(corpus=str(Path(args.corpus).resolve()) if args.corpus else None, layout=args.layout)
    run_config = {}
    jobs = tuple(args.jobs.split(",")) if args.jobs else None
    outcome = run_steps(defs, _instance(), run_config, judges=args.judge, conditions=args.condition, jobs=jobs,
                        force=args.force)
    print(outcome.line())
    print(f"{'success' if outcome else 'FAILED'}: tables in {duckdb_path()}")
    return 0 if outcome else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="cojudge", description="cojudge: LLM judges of code as instruments.")
    sub = parser.add_subparsers(dest="command", required=True)
    m = sub.add_parser("materialize", help="materialize the whole asset graph into DuckDB")
    m.add_argument("--corpus", help="corpus folder (default: the shipped demo corpus, data/demo)")
    m.add_argument("--layout", default="pages", help="corpus layout (default: pages)")
    m.add_argument("--duckdb", help="DuckDB file (default: $COJUDGE_DUCKDB or data/cojudge.duckdb)")
    m.add_argument("--judges-file", help="judges config (default: $COJUDGE_JUDGES or data/judges.yaml)")
    m.add_argument("--judge", action="append", help="only this judge's partitions (repeatable)")
    m.add_argument("--condition", action="append", choices=["blind", "prefix12k", "nonblind"],
                   help="only this condition's partitions (repeatable)")
    m.add_argument("--jobs", help="only these jobs, comma-separated, from: ingest, judge_requests_job, "
                   "judge_outputs_job, measurement_job, mutants_job, perturbation_outputs_job, "
                   "perturbation_metrics_job, dynamics_job, report_job")
    m.add_argument("--force", action="store_true",
                   help="run every step even when Dagster's data versions say it is up to date")
    m.set_defaults(func=materialize)
    args = parser.parse_args(argv)
    return args.func(args)


if __name__ == "__main__":
    sys.exit(main())
