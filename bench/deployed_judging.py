"""Twelve judge partitions, embedded against deployed: the wall time of the same judging work in both profiles.

Usage: .venv/bin/python bench/deployed_judging.py [--attempts 200] [--latency 0.5] [--concurrency 2]

Four loopback providers (one OpenAI-compatible server each, ``--latency`` seconds a request), one judge each,
three conditions: 12 partitions of ``judge_outputs``, each ``--attempts`` requests sent ``--concurrency`` at a
time. The corpus (synthetic ProgSnap2), its ingest and requests are materialized first, untimed, in both profiles.

* embedded: the command's driver (``run_steps``) runs the 12 partitions one after another in this process, as
  ``cojudge materialize`` does (one DuckDB file, one writer);
* deployed: a temporary Postgres cluster holds the Dagster instance and the judge store, the tables are Delta
  tables, and ``dagster-daemon run`` launches one run per partition through the queued run coordinator (3 runs per
  provider at once, dagster.yaml written by ``cojudge deployment config``'s function); timed from the daemon's
  start (its start-up and first automation tick included) to the twelfth partition's run ending.

Prints the two wall times, the ratio, and the requests each provider received (the same in both).
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import dagster as dg  # noqa: E402

from cojudge_assets.definitions import build_definitions  # noqa: E402
from cojudge_assets.driver import run_steps  # noqa: E402
from cojudge_tests.deploy.support import ACTIVE, UPSTREAM, Daemon, deployed_env, deployed_instance  # noqa: E402
from cojudge_tests.judges.fixtures import write_synthetic_progsnap2  # noqa: E402
from cojudge_tests.judges.loopback import LoopbackServer  # noqa: E402
from cojudge_tests.services import postgres_cluster  # noqa: E402

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
JUDGES = ("j1", "j2", "j3", "j4")
# everything but the judges' answers, materialized first (untimed): the timed part is the 12 judge partitions
CONDITIONS = ("blind", "prefix12k", "nonblind")


def write_judges(path: Path, servers: dict[str, LoopbackServer], concurrency: int) -> None:
    lines = ["judges:"]
    for name, server in servers.items():
        lines += [f"  - name: {name}", f"    model: openai/{name}", f"    api_base: {server.api_base}"]
        lines += ["    api_key_env: LOOPBACK_KEY", f"    concurrency: {concurrency}", "    timeout_s: 30"]
    path.write_text("\n".join(lines) + "\n")


def set_env(env: dict[str, str]) -> None:
    for name in ("COJUDGE_PROFILE", "COJUDGE_POSTGRES_URL", "COJUDGE_TABLES_URI", "COJUDGE_PROVIDER_LIMITS"):
        os.environ.pop(name, None)
    os.environ.update(env)


def embedded(tmp: Path, common: dict[str, str], servers: dict[str, LoopbackServer]) -> tuple[float, dict]:
    set_env({**common, "COJUDGE_DUCKDB": str(tmp / "embedded" / "cojudge.duckdb")})
    (tmp / "embedded").mkdir()
    home = tmp / "embedded-home"
    home.mkdir()
    (home / "dagster.yaml").write_text("telemetry:\n  enabled: false\n")
    instance = dg.DagsterInstance.from_config(str(home))
    defs = build_definitions()
    run_steps(defs, instance, {}, jobs=UPSTREAM, echo=lambda _: None)
    before = {name: len(s.requests) for name, s in servers.items()}
    started = time.perf_counter()
    outcome = run_steps(defs, instance, {}, jobs=("judge_outputs_job",), echo=lambda _: None)
    seconds = time.perf_counter() - started
    assert outcome.ok and outcome.ran == len(JUDGES) * len(CONDITIONS), outcome
    return seconds, {name: len(s.requests) - before[name] for name, s in servers.items()}


def deployed(tmp: Path, common: dict[str, str], url: str, servers: dict[str, LoopbackServer]) -> tuple[float, dict]:
    providers = [f"127.0.0.1:{s.port}" for s in servers.values()]
    env = {
        **common,
        **deployed_env(tmp / "deployed", url, COJUDGE_PROVIDER_LIMITS=",".join(f"{p}=3" for p in providers)),
    }
    (tmp / "deployed" / "files").mkdir(parents=True)
    set_env(env)
    instance = deployed_instance(tmp / "deployed-home", dict(os.environ))
    run_steps(build_definitions(), instance, {}, jobs=UPSTREAM, echo=lambda _: None)
    before = {name: len(s.requests) for name, s in servers.items()}
    keys = {f"{c}|{j}" for c in CONDITIONS for j in JUDGES}
    daemon = Daemon(tmp / "deployed", tmp / "deployed-home", env)
    started = time.perf_counter()
    daemon.start()
    try:
        while True:
            if not daemon.alive():
                raise SystemExit(f"the daemon stopped:\n{daemon.tail()}")
            runs = [
                run
                for run in instance.get_runs()
                if dg.AssetKey("judge_outputs") in (run.asset_selection or ()) and run.status not in ACTIVE
            ]
            if {run.tags.get("dagster/partition") for run in runs} >= keys:
                failed = [run.run_id for run in runs if run.status != dg.DagsterRunStatus.SUCCESS]
                if failed:
                    raise SystemExit(f"judge runs failed: {failed}\n{daemon.tail()}")
                seconds = time.perf_counter() - started
                return seconds, {name: len(s.requests) - before[name] for name, s in servers.items()}
            time.sleep(0.5)
    finally:
        daemon.stop()


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--attempts", type=int, default=200)
    parser.add_argument("--latency", type=float, default=0.5)
    parser.add_argument("--concurrency", type=int, default=2)
    args = parser.parse_args()
    os.environ["LOOPBACK_KEY"] = "sk-bench"
    servers = {name: LoopbackServer(delay_s=args.latency) for name in JUDGES}
    for server in servers.values():
        server.script = [("ok", GOOD)]
        server.__enter__()
    try:
        with tempfile.TemporaryDirectory(prefix="cojudge-bench-") as folder, postgres_cluster("bench") as pg:
            tmp = Path(folder)
            corpus = write_synthetic_progsnap2(tmp / "corpus", args.attempts)
            write_judges(tmp / "judges.yaml", servers, args.concurrency)
            common = {"COJUDGE_JUDGES": str(tmp / "judges.yaml"), "COJUDGE_CORPUS": str(corpus)}
            common["COJUDGE_LAYOUT"] = "progsnap2"
            load = os.getloadavg()
            print(
                f"12 judge partitions (4 judges x 3 conditions), {args.attempts} requests each, "
                f"{args.latency} s latency, {args.concurrency} in flight per judge; load average at start "
                f"{load[0]:.1f} on {os.cpu_count()} cores"
            )
            seconds_embedded, sent = embedded(tmp, common, servers)
            print(f"embedded (one process, partitions one after another): {seconds_embedded:.1f} s")
            seconds_deployed, again = deployed(tmp, common, pg.url, servers)
            print(
                f"deployed (daemon, Postgres, queued runs, 3 per provider; daemon start-up included): "
                f"{seconds_deployed:.1f} s"
            )
            print(f"deployed is {seconds_embedded / seconds_deployed:.2f}x faster")
            print(f"requests per judge, embedded {sent}, deployed {again}")
    finally:
        for server in servers.values():
            server.__exit__(None, None, None)


if __name__ == "__main__":
    main()
