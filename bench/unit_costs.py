"""The unit costs of the scaling model (docs/scaling.md), measured in one run and printed as one table.

Usage: .venv/bin/python bench/unit_costs.py [--only sandbox judge measurement ingest] [--limit N] [--mutants 120]
       [--latency 0.5] [--concurrency 8] [--rpm 120] [--predictions 100000 1000000]

* sandbox: the floor (``/bin/true`` through ``run_sandboxed``, bench/seccomp_cost.py's ``one_run``); then the
  label audit on the demo corpus exactly as the ``label_audit`` asset runs it (``audit_labels``, the contest
  judge on every core) with an empty compile and result cache: every distinct program compiled first (timed
  per language), then the audit, which finds them compiled, so its time is the executions alone; then the
  perturbation study's seeds and mutants (``mutation_seeds``, ``generate_mutants`` with the asset's defaults,
  counted), and ``--mutants`` of them spread over them compiled and verified (``verify_mutants``). Each
  sandboxed execution (one program on one test) is counted and timed; its CPU is what the run's control group
  counted (program, bwrap, runner) plus this process's CPU over the pass, a figure the load hardly changes.
  Compilation is reported in core-seconds per program (wall x workers / programs), which the load inflates.
* judge: the judging path (``judge_partition``: litellm, validation, the rate limiter, the cache writer) against
  the test suite's loopback server (cojudge_tests/judges/loopback.py) in a process of its own, answering after
  ``--latency`` s: first limited by ``--concurrency`` requests in flight only, then also by ``--rpm`` requests a
  minute (aiolimiter's leaky bucket: the first ``--rpm`` go out at once, the rest at rpm / 60 per second, the
  rate a long partition sees; measured from the cache rows' ``judged_at``). The client's CPU per request is this
  process's CPU (the server has its own).
* measurement: ``core.measurement.measure`` (every table, 2,000 trajectory and 2,000 problem resamples, as the
  measurement asset computes them) on bench/measurement_throughput.py's synthetic predictions (4 judges x 3
  conditions), scaled to about ``--predictions`` rows.
* ingest: bench/ingest_throughput.py's passes (saved pages, ProgSnap2), per thousand attempts.

Every figure carries the 1-minute load average before and after it was measured and the core count: the
machine may be shared, and wall-clock figures are then slower than on a quiet machine.
"""

from __future__ import annotations

import argparse
import math
import multiprocessing
import os
import resource
import shutil
import statistics
import sys
import tempfile
import threading
import time
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))  # this checkout's package (and cojudge_tests), not another one installed
sys.path.insert(0, str(ROOT / "bench"))  # the other benchmarks' functions

import polars as pl  # noqa: E402
from ingest_throughput import best_of  # noqa: E402
from judge_client_throughput import ANSWER  # noqa: E402
from judge_client_throughput import requests as synthetic_requests  # noqa: E402
from measurement_throughput import JUDGES, synthetic  # noqa: E402
from seccomp_cost import one_run, scratch_box  # noqa: E402

from cojudge_assets.core.constants import CONDITIONS  # noqa: E402
from cojudge_assets.core.execution.contest_judge import ContestJudge, TestOutcome, Verdict  # noqa: E402
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table  # noqa: E402
from cojudge_assets.core.ingest.kattis import read_problems  # noqa: E402
from cojudge_assets.core.ingest.label_audit import audit_labels, auditable  # noqa: E402

DEMO = ROOT / "data" / "demo"
SHARED = ROOT.parent / "shared" / "corpora"
SECTIONS = ("sandbox", "judge", "measurement", "ingest")


def load() -> float:
    return os.getloadavg()[0]


@dataclass
class Table:
    rows: list[tuple[str, str, str, str, str]] = field(default_factory=list)

    def add(self, figure: str, value: float, unit: str, loads: tuple[float, float], detail: str = "") -> None:
        shown = f"{value:,.0f}" if abs(value) >= 1000 else f"{value:.3g}"
        self.rows.append((figure, shown, unit, f"{loads[0]:.1f}-{loads[1]:.1f}", detail))
        print(f"  {figure}: {shown} {unit} (load {loads[0]:.1f}-{loads[1]:.1f}) {detail}", file=sys.stderr, flush=True)

    def print(self) -> None:
        widths = [max(len(r[i]) for r in self.rows) for i in range(4)]
        print(f"{'figure':<{widths[0]}}  {'value':>{widths[1]}}  {'unit':<{widths[2]}}  {'load':<{widths[3]}}  detail")
        for figure, value, unit, loads, detail in self.rows:
            print(f"{figure:<{widths[0]}}  {value:>{widths[1]}}  {unit:<{widths[2]}}  {loads:<{widths[3]}}  {detail}")


class CountingJudge(ContestJudge):
    """The contest judge, counting and timing every sandboxed execution (one program on one test)."""

    def __init__(self, cache_dir: Path) -> None:
        super().__init__(cache_dir)
        self._lock = threading.Lock()
        self.runs: list[tuple[float, Verdict, float]] = []  # (wall s of run_test, verdict, the run's CPU s)

    def run_test(self, *args, **kwargs) -> TestOutcome:
        started = time.perf_counter()
        outcome = super().run_test(*args, **kwargs)
        with self._lock:
            self.runs.append((time.perf_counter() - started, outcome.verdict, outcome.cpu_s))
        return outcome


def compile_all(judge: ContestJudge, programs: set[tuple[str, str, int]], table: Table, what: str) -> None:
    """Compile ``programs`` (language, code, memory MB) as judge_many does (Java and Python in batches, the rest
    one by one on every worker), one language at a time, and add a row per language."""
    for language in sorted({p[0] for p in programs}):
        group = [p for p in programs if p[0] == language]
        before, started = load(), time.perf_counter()
        judge.precompile(group)
        with ThreadPoolExecutor(max_workers=judge.workers) as pool:
            list(pool.map(lambda p: judge.compile(p[0], p[1], memory_mb=p[2]), group))
        wall = time.perf_counter() - started
        table.add(
            f"{what} compile, {language}",
            wall * judge.workers / len(group),
            "core-s per program",
            (before, load()),
            f"{len(group)} distinct programs in {wall:.1f} s on {judge.workers} workers (wall x workers / programs)",
        )


def add_runs(judge: CountingJudge, table: Table, what: str, wall: float, cpu: float, before: float, units: str) -> None:
    """Rows for the executions ``judge`` counted in ``wall`` s; ``cpu``: this process's CPU s in that time."""
    runs = judge.runs
    tle = [w for w, v, _ in runs if v == Verdict.TLE]
    rest = [w for w, v, _ in runs if v != Verdict.TLE]
    in_runs = sum(c for _, _, c in runs)  # every process of each run (its cgroup): bwrap, init, runner, program
    rest_cpu = [c for _, v, c in runs if v != Verdict.TLE]
    table.add(
        f"{what}: sandboxed executions per second per core",
        len(runs) / (wall * judge.workers) if runs else 0.0,
        "exec/s/core (wall)",
        (before, load()),
        f"{len(runs)} executions ({units}) in {wall:.1f} s on {judge.workers} workers",
    )
    table.add(
        f"{what}: CPU per execution",
        (in_runs + cpu) / max(len(runs), 1) * 1000,
        "ms CPU (mean)",
        (before, load()),
        f"{in_runs / max(len(runs), 1) * 1000:.1f} ms in the run's cgroup (program, bwrap, runner) + "
        f"{cpu / max(len(runs), 1) * 1000:.1f} ms in this process (threads, start, cache); "
        f"= {len(runs) / (in_runs + cpu) if runs else 0:.1f} exec per CPU-second",
    )
    if rest:
        table.add(
            f"{what}: one execution that ends in time",
            statistics.mean(rest) * 1000,
            "ms wall (mean)",
            (before, load()),
            f"{len(rest)} executions, median {statistics.median(rest) * 1000:.0f} ms, their cgroup's CPU "
            f"{statistics.mean(rest_cpu) * 1000:.1f} ms (mean); {len(tle)} time-limit executions, "
            f"{sum(tle):.1f} s of the workers' time together",
        )


def sandbox_floor(table: Table, runs: int = 30) -> None:
    with scratch_box() as box:
        for _ in range(5):  # the runner's build, bubblewrap's probe, the page cache
            one_run(box, seccomp=True)
        before = load()
        walls = [one_run(box, seccomp=True)[0] for _ in range(runs)]
    table.add(
        "sandbox floor: /bin/true through run_sandboxed",
        statistics.median(walls) * 1000,
        "ms wall (median)",
        (before, load()),
        f"{runs} runs one after another; at most {1 / statistics.median(walls):.0f} exec/s/core",
    )


def sandbox(args: argparse.Namespace, table: Table) -> None:
    sandbox_floor(table)
    problems = read_problem_table(DEMO, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    attempts = read_corpus(DEMO, "pages", names, contest_settings(DEMO)).attempts.sort("attempt_uid")
    packages = read_problems(DEMO / "problems")
    if args.limit:
        attempts = attempts.head(args.limit)
    audited = auditable(attempts, packages)
    tests = statistics.mean(len(packages[p].tests) for p in audited["problem_id"].unique())
    cache = Path(tempfile.mkdtemp(prefix="cojudge-bench-cache-"))
    try:
        judge = CountingJudge(cache)
        programs = {(r["language"], r["code"], packages[r["problem_id"]].memory_mb) for r in audited.to_dicts()}
        print(f"label audit: {len(audited)} attempts, {len(programs)} distinct programs", file=sys.stderr)
        compile_all(judge, programs, table, "label audit")
        before, started, cpu0 = load(), time.perf_counter(), time.process_time()
        audit = audit_labels(attempts, packages, judge)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
        add_runs(
            judge,
            table,
            "label audit",
            wall,
            cpu,
            before,
            f"{len(audit)} attempts, {len(judge.runs) / len(audit):.1f} per attempt; {tests:.1f} tests per problem",
        )
        mutants(args, attempts, packages, judge, table)
    finally:
        shutil.rmtree(cache, ignore_errors=True)


def mutants(
    args: argparse.Namespace, attempts: pl.DataFrame, packages: dict, judge: CountingJudge, table: Table
) -> None:
    from cojudge_assets.core.perturbation.rewrites import REWRITES
    from cojudge_assets.core.perturbation.verify import generate_mutants, mutation_seeds, verify_mutants
    from cojudge_assets.defs.perturbation.assets import MutationSettings

    settings = MutationSettings()
    before = load()
    seeds = mutation_seeds(attempts, packages, judge)  # every seed is an audited attempt: cached runs
    made = generate_mutants(
        seeds, max_per_operator=settings.max_per_operator or None, rewrite_share=settings.rewrite_share or None
    )
    usable = int(seeds["usable"].sum())
    runnable = [m for m in made if m["single_edit"]]
    rewrites = sum(m["operator"] in REWRITES for m in made)
    table.add(
        "mutants per usable seed",
        len(made) / max(usable, 1),
        "mutants/seed",
        (before, load()),
        f"{len(made)} mutants ({rewrites} rewrites) of {usable} usable seeds ({len(seeds)} accepted C/C++/Java); "
        f"{len(runnable)} single-edit, compiled and run; max_per_operator={settings.max_per_operator}, "
        f"rewrite_share={settings.rewrite_share}",
    )
    if not args.mutants or not runnable:
        return
    step = len(runnable) / min(args.mutants, len(runnable))
    sample = [runnable[int(i * step)] for i in range(min(args.mutants, len(runnable)))]
    language = dict(zip(seeds["seed_uid"].to_list(), seeds["language"].to_list()))
    problem = dict(zip(seeds["seed_uid"].to_list(), seeds["problem_id"].to_list()))
    programs = {(language[m["seed_uid"]], m["code"], packages[problem[m["seed_uid"]]].memory_mb) for m in sample}
    compile_all(judge, programs, table, "mutants")
    judge.runs.clear()
    before, started, cpu0 = load(), time.perf_counter(), time.process_time()
    verified = verify_mutants(seeds, sample, packages, judge)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    add_runs(
        judge,
        table,
        "mutants",
        wall,
        cpu,
        before,
        f"{len(sample)} mutants, {len(judge.runs) / len(sample):.1f} per mutant; "
        f"{int(verified['verified'].sum())} verified",
    )


def serve(latency: float, answer: str, port: multiprocessing.Queue, stop, counts: multiprocessing.Queue) -> None:
    """The test suite's loopback server in this (child) process, answering ``answer`` after ``latency`` s."""
    from cojudge_tests.judges.loopback import LoopbackServer

    with LoopbackServer(model="loopback-bench", delay_s=latency) as server:
        server.script = [("ok", answer)]
        port.put(server.port)
        stop.wait()
        counts.put((len(server.requests), server.max_in_flight))


def timed_partition(spec, n: int, conn, tag: str) -> tuple[float, float, list[float]]:
    """(wall s, this process's CPU s, completion times in s from the start) of judging ``n`` new requests."""
    from cojudge_assets.judges.runner import judge_partition
    from cojudge_assets.judges.store import CACHE_TABLE

    table = synthetic_requests(n, tag)
    started, cpu0 = time.perf_counter(), time.process_time()
    stats = judge_partition(spec, "blind", table, conn)
    wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
    if stats.sent != n or stats.failed:
        raise SystemExit(f"judging did not go as asked: {stats}")
    times = conn.execute(f"select judged_at from {CACHE_TABLE} where judge = ? order by judged_at", [spec.name])
    stamps = [row[0].timestamp() for row in times.fetchall()]
    return wall, cpu, [s - stamps[0] for s in stamps]


def judge(args: argparse.Namespace, table: Table) -> None:
    import duckdb

    from cojudge_assets.judges.config import JudgeSpec

    os.environ["BENCH_KEY"] = "bench-key"
    context = multiprocessing.get_context("spawn")  # a fresh interpreter: no thread or lock of this one inherited
    port, counts, stop = context.Queue(), context.Queue(), context.Event()
    server = context.Process(target=serve, args=(args.latency, ANSWER, port, stop, counts), daemon=True)
    server.start()
    api_base = f"http://127.0.0.1:{port.get(timeout=120)}/v1"
    c, latency, rpm = args.concurrency, args.latency, args.rpm

    def spec(name: str, limit: int) -> JudgeSpec:
        return JudgeSpec(
            name=name, model="openai/bench", api_base=api_base, api_key_env="BENCH_KEY", concurrency=c, rpm=limit
        )

    with tempfile.TemporaryDirectory() as tmp:
        conn = duckdb.connect(str(Path(tmp) / "bench.duckdb"))
        timed_partition(spec("warmup", 0), 2 * c, conn, "warmup")  # litellm's imports and first connections
        n = int(16 * c)
        before = load()
        wall, cpu, _ = timed_partition(spec("bench-concurrency", 0), n, conn, "c")
        ideal = c / latency
        table.add(
            "judge requests/s, concurrency limit only",
            n / wall,
            "req/s",
            (before, load()),
            f"limit: {c} in flight / {latency} s latency = {ideal:.1f} req/s; {n} requests in {wall:.1f} s "
            f"({n / wall / ideal:.0%} of the limit, the 0.5 s slow start included)",
        )
        table.add(
            "judge client CPU per request", cpu / n * 1000, "ms CPU", (before, load()), "litellm, validation, writer"
        )
        extra = max(20, rpm // 3)
        before = load()
        wall, cpu, stamps = timed_partition(spec("bench-rpm", rpm), rpm + extra, conn, "r")
        tail = extra // 2  # past the burst and what the bucket leaked during it: the long-run rate
        steady = (tail - 1) / (stamps[-1] - stamps[-tail])
        table.add(
            "judge requests/s past the rpm burst",
            steady,
            "req/s",
            (before, load()),
            f"limit: rpm {rpm} = {rpm / 60:.2f} req/s (and {ideal:.1f} by concurrency); the first {rpm} in "
            f"{stamps[rpm - 1]:.1f} s (the bucket's burst), {extra} more, the last {tail} at {steady:.2f} req/s; "
            f"client CPU {cpu / (rpm + extra) * 1000:.1f} ms per request",
        )
        conn.close()
    stop.set()
    served, in_flight = counts.get(timeout=60)
    server.join(timeout=30)
    table.add("loopback server: most requests in flight", in_flight, "requests", (load(), load()), f"{served} served")


def measurement(args: argparse.Namespace, table: Table) -> None:
    from cojudge_assets.core.measurement.measure import MeasurementConfig, measure

    config = MeasurementConfig()
    cells = len(JUDGES) * len(CONDITIONS)
    measure(synthetic(100), config)  # the libraries imported on first use, outside the timing
    for target in args.predictions:
        attempts = math.ceil(target / cells)
        data = synthetic(attempts)
        before, started, cpu0 = load(), time.perf_counter(), time.process_time()
        tables = measure(data, config)
        wall, cpu = time.perf_counter() - started, time.process_time() - cpu0
        rss = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
        table.add(
            f"measurement, {len(data):,} predictions",
            wall / (len(data) / 1e6),
            "s per million predictions",
            (before, load()),
            f"{attempts:,} attempts x {cells} judge-conditions in {wall:.1f} s (CPU {cpu:.1f} s), "
            f"{config.resamples} + {config.problem_resamples} resamples, {sum(len(t) for t in tables.values())} "
            f"rows out; peak RSS so far {rss:,.0f} MB",
        )


def ingest(args: argparse.Namespace, table: Table) -> None:
    from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
    from cojudge_assets.core.ingest.progsnap2 import read_progsnap2

    rules = PageRules(set(read_problems(DEMO / "problems")), contest_settings(DEMO).vocabulary)
    pages = list_pages(DEMO)
    before = load()
    elapsed, (attempts, _) = best_of(5, lambda: read_attempts(DEMO, pages, rules))
    table.add("ingest, saved pages", elapsed / len(attempts) * 1000, "s per 1,000 attempts", (before, load()), "demo")
    for name in ("itsp-c", "csedm2019-python", "condefects-atcoder"):
        if not (SHARED / name / "progsnap2").is_dir():
            continue
        before = load()
        elapsed, (attempts, _, _) = best_of(5, lambda name=name: read_progsnap2(SHARED / name))
        table.add(
            f"ingest, ProgSnap2 {name}",
            elapsed / len(attempts) * 1000,
            "s per 1,000 attempts",
            (before, load()),
            f"{len(attempts)} attempts, best of 5",
        )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--only", nargs="*", choices=SECTIONS, default=list(SECTIONS))
    parser.add_argument("--limit", type=int, default=0, help="audit only the first N demo attempts (0: all)")
    parser.add_argument("--mutants", type=int, default=120, help="mutants compiled and verified (0: none)")
    parser.add_argument("--latency", type=float, default=0.5, help="the loopback server's latency, s")
    parser.add_argument("--concurrency", type=int, default=8, help="the judge's requests in flight")
    parser.add_argument("--rpm", type=int, default=120, help="the judge's requests per minute")
    parser.add_argument("--predictions", type=int, nargs="*", default=[100_000, 1_000_000])
    args = parser.parse_args()
    table = Table()
    start = os.getloadavg()
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC; {os.cpu_count()} cores; load average at the start "
        f"{start[0]:.2f} / {start[1]:.2f} / {start[2]:.2f} (1 / 5 / 15 min)"
    )
    steps = {"sandbox": sandbox, "judge": judge, "measurement": measurement, "ingest": ingest}
    for name in SECTIONS:
        if name in args.only:
            print(f"{name} ...", file=sys.stderr, flush=True)
            steps[name](args, table)
    end = os.getloadavg()
    print(f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC at the end; load average {end[0]:.2f} / {end[1]:.2f} / {end[2]:.2f}")
    table.print()


if __name__ == "__main__":
    main()
