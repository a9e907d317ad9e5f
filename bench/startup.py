"""Start-up cost: loading the Definitions in a fresh interpreter, and a warm ``cojudge materialize``.

Import: ``--repeat`` fresh interpreters each import ``cojudge_assets.definitions`` and build the Definitions
(``defs()``, what ``dagster dev`` and every Dagster run process do); the child measures from before the import to
after the build (wall and CPU seconds), and the median is printed, beside a bare ``import dagster`` for scale.

Warm run: the run command on a study that is already materialized. The study is copied (the folder of its DuckDB
file, with the judges file and the demo corpus beside it, and its Dagster home) into a temporary folder, so the
source is never written; one settling run re-runs what the checked-out code changed, then the warm run is timed.
Without a materialized study (``--study`` missing), the warm run is skipped with a note.

    .venv/bin/python bench/startup.py [--repeat 5] [--study data/cojudge.duckdb] [--home dagster_home] [--before DIR]
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]

CHILD = """
import time
started, cpu = time.perf_counter(), time.process_time()
{body}
print(time.perf_counter() - started, time.process_time() - cpu)
"""
DEFINITIONS = "from cojudge_assets.definitions import defs\ndefs()"
DAGSTER = "import dagster"


def child_seconds(body: str, env: dict, code: Path) -> tuple[float, float]:
    """(wall, CPU) seconds of ``body`` in a fresh interpreter started in ``code`` (whose cojudge_assets it
    imports), measured inside it."""
    done = subprocess.run(
        [sys.executable, "-c", CHILD.format(body=body)], cwd=code, env=env, capture_output=True, text=True
    )
    if done.returncode != 0:
        sys.exit(f"the child failed:\n{done.stderr[-3000:]}")
    wall, cpu = done.stdout.strip().splitlines()[-1].split()
    return float(wall), float(cpu)


def median_of(body: str, repeat: int, env: dict, code: Path = REPO) -> tuple[float, float, list[float]]:
    runs = [child_seconds(body, env, code) for _ in range(repeat)]
    walls = [w for w, _ in runs]
    return statistics.median(walls), statistics.median(c for _, c in runs), walls


def materialize(db: Path, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(Path(sys.executable).parent / "cojudge"), "materialize", "--duckdb", str(db)],
        cwd=db.parent,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"cojudge materialize failed:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return seconds, done.stdout


def warm_run(study: Path, home: Path, env: dict) -> None:
    if not study.is_file():
        print(f"warm run: skipped, no materialized study at {study} (materialize the demo first, or pass --study)")
        return
    root = Path(tempfile.mkdtemp(prefix="cojudge-startup-"))
    try:
        data = root / "data"
        shutil.copytree(study.parent, data, ignore=shutil.ignore_patterns("*.lock", "*.wal"))
        shutil.copytree(home, root / "dagster_home", ignore=shutil.ignore_patterns("*.lock"))
        run_env = {
            **env,
            "DAGSTER_HOME": str(root / "dagster_home"),
            "COJUDGE_JUDGES": str(data / "judges.yaml"),
        }
        db = data / study.name
        settle, _ = materialize(db, run_env)  # re-runs what the checked-out code changed since the copy was made
        seconds, stdout = materialize(db, run_env)
        calls = re.search(r"(\d+) request(?:s|\(s\))? sent to judges", stdout)
        nothing = "nothing changed" in stdout
        print(f"warm run: {seconds:.1f} s (settling run before it: {settle:.1f} s)")
        print(f"  'nothing changed' printed: {nothing}; requests sent: {calls.group(1) if calls else '?'}")
    finally:
        shutil.rmtree(root, ignore_errors=True)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=5, help="fresh interpreters per import measurement")
    parser.add_argument("--study", default=str(REPO / "data" / "cojudge.duckdb"), help="a materialized DuckDB file")
    parser.add_argument("--home", default=str(REPO / "dagster_home"), help="the Dagster home of that study")
    parser.add_argument("--no-warm", action="store_true", help="measure the import only")
    parser.add_argument(
        "--before",
        help="also the import time of another copy of the code (a folder holding cojudge_assets, pyproject.toml "
        "and data/judges.yaml, e.g. `git archive <commit> cojudge_assets pyproject.toml data/judges.yaml | tar -x -C "
        "DIR`), interleaved with this one's",
    )
    args = parser.parse_args()
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    load = os.getloadavg()
    print(f"cores: {os.cpu_count()}  load average: {load[0]:.2f} {load[1]:.2f} {load[2]:.2f}")
    codes = {"this code": (REPO, env)}
    if args.before:
        before = Path(args.before).resolve()
        codes[str(before)] = (before, {**env, "PYTHONPATH": str(before)})
    runs: dict[str, list[tuple[float, float]]] = {name: [] for name in codes}
    for _ in range(args.repeat):  # interleaved, so that both see the same load
        for name, (code, code_env) in codes.items():
            runs[name].append(child_seconds(DEFINITIONS, code_env, code))
    for name, timings in runs.items():
        walls = [w for w, _ in timings]
        print(
            f"import + build the Definitions ({name}): median {statistics.median(walls):.2f} s wall, "
            f"{statistics.median(c for _, c in timings):.2f} s CPU over {args.repeat} fresh interpreters "
            f"(each: {', '.join(f'{w:.2f}' for w in walls)})"
        )
    d_wall, d_cpu, _ = median_of(DAGSTER, args.repeat, env)
    print(f"  for scale, import dagster alone: median {d_wall:.2f} s wall, {d_cpu:.2f} s CPU")
    if not args.no_warm:
        warm_run(Path(args.study).resolve(), Path(args.home).resolve(), env)


if __name__ == "__main__":
    main()
