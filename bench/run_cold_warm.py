"""The README's run command on the demo corpus, cold and then warm, timed.

Cold: a fresh DuckDB file, a fresh Dagster home and empty compile/result caches
(XDG_CACHE_HOME points at an empty folder). Warm: the same command again. Each
run is ``cojudge materialize`` in its own process, as a user runs it; the judge
calls are the requests the run reports as sent.

Per step (one run of the command: one partition of one asset job, its assets in brackets), from the step lines
the command prints (driver.py ``StepUse``): wall time, CPU time (user + system of the command's process and of
the sandbox processes it waited for, which does not move with the machine's load) and the peak resident memory of
the command's process during that step. The whole run's peak is ``ru_maxrss`` from ``os.wait4``: the largest
of the command's process and the processes it waited for. The graded study's share is the CPU and wall of
the steps whose assets are all graded ones (``graded_*``) over those of all the other steps, from the same run.

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


def run(tree: Path, db: Path, env: dict, log: Path) -> tuple[float, float, str]:
    """Wall seconds, the run's peak RSS (MB) and the command's output (also written to ``log``)."""
    started = time.perf_counter()
    with open(log, "w") as out, open(log.with_suffix(".err"), "w") as err:
        child = subprocess.Popen(
            [str(tree / ".venv" / "bin" / "cojudge"), "materialize", "--duckdb", str(db)],
            cwd=tree,
            env=env,
            stdout=out,
            stderr=err,
        )
        _, status, usage = os.wait4(child.pid, 0)
    seconds = time.perf_counter() - started
    stdout = log.read_text()
    if os.waitstatus_to_exitcode(status) != 0:
        sys.exit(
            f"cojudge materialize failed in {tree}:\n{stdout[-4000:]}\n{log.with_suffix('.err').read_text()[-4000:]}"
        )
    return seconds, usage.ru_maxrss / 1024, stdout


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


STEP_LINE = re.compile(
    r"^(\S+): ok \(run \w+, (\d+\.\d) s, cpu (\d+\.\d) s(?:, peak ([\d,]+) MB)?\)[^\[]*\[([^\]]*)\]", re.MULTILINE
)


def step_uses(stdout: str) -> list[dict]:
    """Every step that ran: its label, wall and CPU seconds, peak MB (None where not measured), assets."""
    return [
        {
            "step": m.group(1),
            "wall": float(m.group(2)),
            "cpu": float(m.group(3)),
            "peak": None if m.group(4) is None else float(m.group(4).replace(",", "")),
            "assets": [a.strip() for a in m.group(5).split(",")],
        }
        for m in STEP_LINE.finditer(stdout)
    ]


def graded_share(uses: list[dict]) -> str:
    """The graded steps' CPU and wall over all the other steps' (a step mixing both kinds is named, not split)."""
    total = {kind: [0.0, 0.0] for kind in ("graded", "other", "mixed")}
    for use in uses:
        graded = [asset.startswith("graded_") for asset in use["assets"] if asset != "..."]
        kind = "graded" if all(graded) else "other" if not any(graded) else "mixed"
        total[kind][0] += use["cpu"]
        total[kind][1] += use["wall"]
    (g_cpu, g_wall), (o_cpu, o_wall) = total["graded"], total["other"]
    line = (
        f"    graded steps: cpu {g_cpu:.1f} s, wall {g_wall:.1f} s; all other steps: cpu {o_cpu:.1f} s, "
        f"wall {o_wall:.1f} s -> graded adds {100 * g_cpu / o_cpu:+.0f}% (cpu), {100 * g_wall / o_wall:+.0f}% (wall)"
    )
    if total["mixed"][1]:
        line += f"; steps mixing graded and other assets, not counted: cpu {total['mixed'][0]:.1f} s"
    return line


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
    print(
        f"{'tree':<10}{'run':<6}{'seconds':>10}{'peak MB':>9}{'steps run':>11}{'skipped':>9}{'judge calls':>13}"
        f"{'load':>7}"
    )
    for run_kind in ("cold",) if args.cold_only else ("cold", "warm"):
        for label, tree in trees.items():
            log = root / label.replace("/", "_") / f"{run_kind}.log"
            seconds, peak, stdout = run(tree, dbs[label], envs[label], log)
            done = steps(stdout)
            calls = re.search(r"(\d+) request(?:s|\(s\))? sent to judges", stdout)
            print(
                f"{label:<10}{run_kind:<6}{seconds:>10.1f}{peak:>9.0f}{sum(s == 'ran' for _, s in done):>11}"
                f"{sum(s == 'skipped' for _, s in done):>9}{calls.group(1) if calls else '?':>13}"
                f"{os.getloadavg()[0]:>7.1f}",
                flush=True,
            )
            if run_kind == "cold":
                uses = step_uses(stdout)
                print(f"    {'step':<48}{'wall s':>9}{'cpu s':>9}{'peak MB':>9}  assets")
                for use in uses:
                    peak_mb = "?" if use["peak"] is None else f"{use['peak']:.0f}"
                    print(
                        f"    {use['step']:<48}{use['wall']:>9.1f}{use['cpu']:>9.1f}{peak_mb:>9}  "
                        f"{', '.join(use['assets'])}"
                    )
                print(
                    f"    (steps: wall {sum(u['wall'] for u in uses):.1f} s, cpu {sum(u['cpu'] for u in uses):.1f} s;"
                    " the rest is starting the command and each run)"
                )
                print(graded_share(uses), flush=True)
    if args.against:
        subprocess.run(["git", "-C", str(REPO), "worktree", "remove", "--force", str(root / "against")], check=False)
    if not args.keep:
        shutil.rmtree(root, ignore_errors=True)


if __name__ == "__main__":
    main()
