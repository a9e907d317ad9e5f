"""Each step's wall time, CPU time and peak resident memory, one child process per step, on a built DuckDB file.

For every step, upstream first (a step is one of the Definitions' asset jobs, as the run command's lines name
them, or with ``--by asset`` one asset; or the assets of ``--select``), the script runs
``cojudge materialize --force --select <its assets>`` in a child process of its own and reads that child's resource
use from ``os.wait4`` (the child and the processes it waited for: the sandbox's runs included): wall time, CPU
time (user + system, which does not move with the machine's load) and peak RSS (``ru_maxrss``). A step's peak
therefore includes the command's own start (Python, Dagster, the Definitions: about 0.25 GB), the figure a user
sees. ``--force`` re-runs the step whatever Dagster's evaluator says; its partitions all run (a judge x
condition asset runs every partition).

The DuckDB file must hold the upstream tables (a finished ``cojudge materialize``); the contest judge's cache
(``--cache``) should be the one that run filled, or the sandbox steps recompile and re-run everything.

    .venv/bin/python bench/step_memory.py --duckdb DIR/cojudge.duckdb --home DIR/home --cache DIR/cache \\
        [--corpus PATH --layout LAYOUT --judges-file FILE] [--select a,b] [--limit-gb 1.5]
"""

from __future__ import annotations

import argparse
import json
import os
import re
import resource
import subprocess
import sys
import time
from dataclasses import dataclass
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


@dataclass
class StepUse:
    step: str
    ok: bool
    wall_s: float
    cpu_s: float
    peak_mb: float
    last_line: str


def own_peak_mb() -> float:
    """This process's peak RSS so far (MB): the floor under every figure :func:`run_child` gives from now on."""
    return resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024


RUN_PEAK = re.compile(r"\(run [0-9a-f]+, [^)]*peak ([\d,]+) MB\)")  # the driver's line for each run it made


def run_child(command: list[str], env: dict, log: Path) -> tuple[int, float, float, float]:
    """Run ``command`` with its output to ``log``; (exit code, wall s, CPU s, peak RSS MB) of that child alone
    (os.wait4: its own rusage, not the sum of every child this process had).

    The peak is never below this process's own peak at the start (:func:`own_peak_mb`): Linux keeps the
    high-water RSS of the memory the child had before its exec (this process's, shared by vfork) in the child's
    ru_maxrss. ``/bin/true`` started by a process that once held 800 MB reports 814 MB. So the caller keeps its
    own memory small (bench/scale_rehearsal.py writes its corpus in a process of its own).

    Nor is ru_maxrss above the last run's: ``cojudge materialize`` resets its high-water mark at each run it makes
    (driver.py ``StepUse``, /proc/self/clear_refs), and the kernel takes the mark at exit. So the peak is the
    highest of ru_maxrss and every run's own peak the command printed (a step of several runs: the ingest job's
    problems, then attempts, then the label audit's buckets)."""
    started = time.perf_counter()
    with log.open("w") as out:
        child = subprocess.Popen(command, env=env, stdout=out, stderr=subprocess.STDOUT, cwd=REPO)
        _, status, usage = os.wait4(child.pid, 0)
    child.returncode = os.waitstatus_to_exitcode(status)  # Popen must not wait again
    wall = time.perf_counter() - started
    runs = [float(m.group(1).replace(",", "")) for m in RUN_PEAK.finditer(log.read_text(errors="replace"))]
    return child.returncode, wall, usage.ru_utime + usage.ru_stime, max([usage.ru_maxrss / 1024, *runs])


def step_ok(code: int, output: str) -> bool:
    """A step ran: exit 0, no failed run, and no step left waiting for an input (the command exits 0 then)."""
    return code == 0 and "FAILED" not in output and "waits for an input never materialized" not in output


def materialize_step(step: str, assets: list[str], args: argparse.Namespace, env: dict, logs: Path) -> StepUse:
    command = [str(REPO / ".venv" / "bin" / "cojudge"), "materialize", "--force", "--select", ",".join(assets)]
    command += ["--duckdb", str(args.duckdb), "--cache", str(args.cache)]
    for flag in ("corpus", "layout", "judges_file"):
        value = getattr(args, flag)
        if value:
            command += [f"--{flag.replace('_', '-')}", str(value)]
    log = logs / f"{step}.log"
    code, wall, cpu, peak = run_child(command, env, log)
    output = log.read_text(errors="replace")
    lines = [line for line in output.splitlines() if line.strip()]
    return StepUse(step, step_ok(code, output), wall, cpu, peak, lines[-1] if lines else "")


STEPS_CODE = """
import json
from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import _materializable, step_jobs
defs = build_definitions()
jobs = step_jobs(defs)
steps = []
for key in _materializable(defs):
    if not steps or steps[-1][0] != jobs[key]:
        steps.append((jobs[key], []))
    steps[-1][1].append(key.to_user_string())
print(json.dumps(steps))
"""


def steps_in_order(env: dict, *, by: str = "job", leave_out: set[str] | frozenset = frozenset()) -> dict[str, list]:
    """The steps, upstream first, each with its assets: by ``job`` (the driver's step: one of the Definitions'
    asset jobs, driver.step_jobs) or by ``asset``; listed in a child so this process stays small."""
    done = subprocess.run([sys.executable, "-c", STEPS_CODE], env=env, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"could not list the steps:\n{done.stderr[-2000:]}")
    steps: dict[str, list] = {}
    for job, assets in json.loads(done.stdout.splitlines()[-1]):
        kept = [a for a in assets if a not in leave_out]
        if by == "job" and kept:
            # a job's assets in one step while they are consecutive upstream first: a job spanning stages
            # (dynamics_job: success_at_turn before judging, rank_consensus after it) is two steps
            name = job if job not in steps else f"{job}#{sum(1 for s in steps if s.split('#')[0] == job) + 1}"
            steps[name] = kept
        elif by == "asset":
            steps.update({a: [a] for a in kept})
    return steps


def print_table(uses: list[StepUse], limit_gb: float) -> None:
    print(f"{'step':<26} {'ok':<4} {'wall s':>8} {'cpu s':>8} {'peak MB':>8}")
    for use in uses:
        over = "  > limit" if use.peak_mb > limit_gb * 1024 else ""
        state = "ok" if use.ok else "FAIL"
        print(f"{use.step:<26} {state:<4} {use.wall_s:8.1f} {use.cpu_s:8.1f} {use.peak_mb:8.0f}{over}")
    if uses:
        worst = max(uses, key=lambda u: u.peak_mb)
        print(
            f"total: {sum(u.wall_s for u in uses):.0f} s wall, {sum(u.cpu_s for u in uses):.0f} s CPU; "
            f"highest peak {worst.peak_mb:.0f} MB ({worst.step}); over {limit_gb} GB: "
            f"{', '.join(u.step for u in uses if u.peak_mb > limit_gb * 1024) or 'none'}; "
            f"failed: {', '.join(u.step for u in uses if not u.ok) or 'none'}"
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--duckdb", type=Path, required=True)
    parser.add_argument("--home", type=Path, required=True, help="the DAGSTER_HOME of the run that built it")
    parser.add_argument("--cache", type=Path, required=True)
    parser.add_argument("--corpus", type=Path)
    parser.add_argument("--layout")
    parser.add_argument("--judges-file", type=Path)
    parser.add_argument("--select", help="comma-separated assets, one step each (default: every step)")
    parser.add_argument("--by", choices=("job", "asset"), default="job", help="a step is a job (default) or an asset")
    parser.add_argument("--limit-gb", type=float, default=1.5)
    parser.add_argument("--logs", type=Path, help="folder for each step's output (default: next to the DuckDB)")
    args = parser.parse_args()
    if not args.duckdb.is_file():
        parser.error(f"--duckdb {args.duckdb}: no such file (build it with cojudge materialize first)")
    env = dict(os.environ, DAGSTER_HOME=str(args.home))
    logs = args.logs or args.duckdb.parent / "step_memory_logs"
    logs.mkdir(parents=True, exist_ok=True)
    if args.corpus:
        env["COJUDGE_CORPUS"] = str(args.corpus)
    if args.layout:
        env["COJUDGE_LAYOUT"] = args.layout
    if args.judges_file:
        env["COJUDGE_JUDGES"] = str(args.judges_file)
    steps = {a: [a] for a in args.select.split(",")} if args.select else steps_in_order(env, by=args.by)
    uses = []
    for step, assets in steps.items():
        use = materialize_step(step, assets, args, env, logs)
        print(
            f"{use.step}: {'ok' if use.ok else 'FAILED'} {use.wall_s:.1f} s wall, {use.cpu_s:.1f} s CPU, "
            f"{use.peak_mb:.0f} MB peak ({use.last_line[:100]})",
            flush=True,
        )
        uses.append(use)
    print()
    print_table(uses, args.limit_gb)
    with open("/proc/loadavg") as load:
        print(f"load average: {load.read().split()[:3]}")


if __name__ == "__main__":
    main()
