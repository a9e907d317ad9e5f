"""The README's run command on the demo corpus, cold and then warm, timed.

Cold: a fresh DuckDB file, a fresh Dagster home and empty compile/result caches
(XDG_CACHE_HOME points at an empty folder). Warm: the same command again. Each
run is ``cojudge materialize`` in its own process, as a user runs it; the judge
calls are the requests the run reports as sent.

    .venv/bin/python bench/run_cold_warm.py [--keep DIR] [--against REF]

``--against REF`` times the same runs on an older commit side by side, in the same sitting: a git worktree of
REF with its own ``.venv`` (its own ``.ci/bootstrap``), cold runs of both trees first, then their warm runs, so
that a change of the machine's load touches both alike.
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


def run(tree: Path, db: Path, env: dict) -> tuple[float, str]:
    started = time.perf_counter()
    done = subprocess.run(
        [str(tree / ".venv" / "bin" / "cojudge"), "materialize", "--duckdb", str(db)],
        cwd=tree,
        env=env,
        capture_output=True,
        text=True,
    )
    seconds = time.perf_counter() - started
    if done.returncode != 0:
        sys.exit(f"cojudge materialize failed in {tree}:\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}")
    return seconds, done.stdout


def worktree(ref: str, folder: Path) -> Path:
    """A checkout of ``ref`` in ``folder`` with its own .venv (its own bootstrap: the lock of that commit)."""
    subprocess.run(["git", "-C", str(REPO), "worktree", "add", "--detach", str(folder), ref], check=True)
    subprocess.run(["bash", ".ci/bootstrap"], cwd=folder, check=True, stdout=subprocess.DEVNULL)
    # byte-compiled like this tree (an older bootstrap may not do it), so that the comparison is of the code
    python = folder / ".venv" / "bin" / "python"
    purelib = subprocess.run(
        [str(python), "-c", "import sysconfig; print(sysconfig.get_paths()['purelib'])"],
        check=True,
        capture_output=True,
        text=True,
    ).stdout.strip()
    subprocess.run(
        [str(python), "-m", "compileall", "-q", "-j", "0", purelib, "cojudge_assets"],
        cwd=folder,
        check=True,
        stdout=subprocess.DEVNULL,
    )
    return folder


def steps(stdout: str) -> list[tuple[str, str]]:
    """(step, 'ran' or 'skipped') for every step line the command printed."""
    out = []
    for line in stdout.splitlines():
        match = re.match(r"^(\w+(?:\[[^\]]+\])?): (ok|up to date, skipped)", line)
        if match:
            out.append((match.group(1), "skipped" if "skipped" in match.group(2) else "ran"))
    return out


def slowest_steps(stdout: str) -> list[tuple[float, str]]:
    return sorted(
        (
            (float(m.group(2)), m.group(1))
            for m in re.finditer(r"^(\S+): ok \(run \w+, (\d+\.\d) s\)", stdout, re.MULTILINE)
        ),
        reverse=True,
    )


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--keep", help="keep the run's folder here instead of a temporary one")
    parser.add_argument("--against", metavar="REF", help="also time a worktree of this commit, side by side")
    parser.add_argument("--cold-only", action="store_true", help="the cold run only (no warm run)")
    args = parser.parse_args()
    root = Path(args.keep) if args.keep else Path(tempfile.mkdtemp(prefix="cojudge-bench-"))
    root.mkdir(parents=True, exist_ok=True)
    trees = {"now": REPO}
    if args.against:
        trees[args.against] = worktree(args.against, root / "against")
    envs, dbs = {}, {}
    for label in trees:
        folder = root / label.replace("/", "_")
        home, cache = folder / "dagster_home", folder / "cache"
        home.mkdir(parents=True, exist_ok=True)
        cache.mkdir(exist_ok=True)
        shutil.copy(REPO / "dagster_home" / "dagster.yaml", home / "dagster.yaml")
        clean = {k: v for k, v in os.environ.items() if k not in ("COJUDGE_CACHE", "COJUDGE_DUCKDB")}
        envs[label] = {**clean, "DAGSTER_HOME": str(home), "XDG_CACHE_HOME": str(cache)}
        dbs[label] = folder / "cojudge.duckdb"
    print(f"cores: {os.cpu_count()}  folder: {root}  load average at start: {os.getloadavg()[0]:.1f}")
    print(f"{'tree':<10}{'run':<6}{'seconds':>10}{'steps run':>11}{'skipped':>9}{'judge calls':>13}{'load':>7}")
    for run_kind in ("cold",) if args.cold_only else ("cold", "warm"):
        for label, tree in trees.items():
            seconds, stdout = run(tree, dbs[label], envs[label])
            done = steps(stdout)
            calls = re.search(r"(\d+) request(?:s|\(s\))? sent to judges", stdout)
            print(
                f"{label:<10}{run_kind:<6}{seconds:>10.1f}{sum(s == 'ran' for _, s in done):>11}"
                f"{sum(s == 'skipped' for _, s in done):>9}{calls.group(1) if calls else '?':>13}"
                f"{os.getloadavg()[0]:>7.1f}",
                flush=True,
            )
            if run_kind == "cold":
                slowest = slowest_steps(stdout)
                for step_seconds, step in slowest[:8]:
                    print(f"    {step}: {step_seconds:.1f} s")
                print(f"    (steps {sum(s for s, _ in slowest):.1f} s; the rest is starting the command and each run)")
    if args.against:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(root / "against")], check=False)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
