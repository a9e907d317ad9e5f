"""The README's run command on the demo corpus, cold and then warm, timed.

Cold: a fresh DuckDB file, a fresh Dagster home and empty compile/result caches
(XDG_CACHE_HOME points at an empty folder). Warm: the same command again. Each
run is ``cojudge materialize`` in its own process, as a user runs it; the judge
calls are the requests the run reports as sent.

    .venv/bin/python bench/run_cold_warm.py [--keep DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def run(db: Path, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cojudge"), "materialize", "--duckdb", str(db)],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"cojudge materialize failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return seconds, done.stdout


def steps(stdout: str) -> list[tuple[str, str]]:
    """(step, 'ran' or 'skipped') for every step line the command printed."""
    out = []
    for line in stdout.splitlines():
        match = re.match(r"^(\w+(?:\[[^\]]+\])?): (ok|up to date, skipped)", line)
        if match:
            out.append((match.group(1), "skipped" if "skipped" in match.group(2) else "ran"))
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="keep the run's folder here instead of a temporary one")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cojudge-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    home, cache = root / "dagster_home", root / "cache"
    home.mkdir(exist_ok=True)
    cache.mkdir(exist_ok=True)
    shutil.copy(REPO / "dagster_home" / "dagster.yaml", home / "dagster.yaml")
    env = {**os.environ, "DAGSTER_HOME": str(home), "XDG_CACHE_HOME": str(cache)}
    db = root / "cojudge.duckdb"
    print(f"cores: {os.cpu_count()}  folder: {root}")
    print(f"{'run':<6}{'seconds':>10}{'steps run':>11}{'skipped':>9}{'judge calls':>13}")
    for label in ("cold", "warm"):
        seconds, stdout = run(db, env)
        done = steps(stdout)
        calls = re.search(r"(\d+) request(?:s|\(s\))? sent to judges", stdout)
        print(
            f"{label:<6}{seconds:>10.1f}{sum(s == 'ran' for _, s in done):>11}"
            f"{sum(s == 'skipped' for _, s in done):>9}{calls.group(1) if calls else '?':>13}"
        )
        if label == "cold":
            slowest = sorted(
                (
                    (float(m.group(2)), m.group(1))
                    for m in re.finditer(r"^(\S+): ok \(run \w+, (\d+\.\d) s\)", stdout, re.MULTILINE)
                ),
                reverse=True,
            )
            for step_seconds, step in slowest:
                print(f"    {step}: {step_seconds:.1f} s")
            print(f"    (steps {sum(s for s, _ in slowest):.1f} s; the rest is starting the command and each run)")
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
