"""A scale rehearsal: a synthetic corpus of N attempts with imported judges of known AUC, run from ingest to
report, one child process per step, each step's wall time, CPU time and peak RSS printed.

The corpus (ProgSnap2 layout, core/ingest/progsnap2.py): ``participants x problems`` trajectories of ``turns``
attempts each (N = their product). Each trajectory has a latent skill, each problem a difficulty and each turn a
gain; an attempt's latent quality is their sum plus noise, and it is accepted when the quality is above 0 (so
the labels are clustered by trajectory and improve with the turns). Every code is distinct.

The judges (the *cojudge judgments* format, core/judging/imported.py; no sandbox, no network): two imported
judges x the three conditions read one Parquet file. A judge's score of an attempt is
``Phi((d * accepted + e) / 2)`` with ``e ~ N(0, 1)``: given the label it is binormal with separation ``d``, so
its ROC-AUC is exactly ``Phi(d / sqrt(2))`` (any monotone map keeps the AUC), and every score is a distinct
continuous value. Each (judge, condition) has its own ``d``; the planted AUCs are printed beside the ones
measurement recovers (judge_metrics, roc_auc, with its interval).

Steps: every materializable asset except those that need the sandbox (label audit, mutants, graded programs and
their perturbation judging: they execute code, which a synthetic corpus without tests has nothing to run), each
step (one of the Definitions' asset jobs, as the run command names them; ``--by asset``: one asset)
``cojudge materialize --select <its assets>`` in a child process of its own (bench/step_memory.py's ``run_child``:
os.wait4, that child's own rusage).

    .venv/bin/python bench/scale_rehearsal.py --attempts 100000 [--folder DIR] [--keep] [--limit-gb 2]
        [--select ASSETS --force]   (one step again on a finished study: a copy of its folder, whose corpus and
        judgments are used as they are)
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import shutil
import sys
import tempfile
import time
from pathlib import Path

import polars as pl

sys.path.insert(0, str(Path(__file__).resolve().parent))
from step_memory import StepUse, own_peak_mb, print_table, run_child, step_ok, steps_in_order  # noqa: E402  (a sibling script, run as a file)

from cojudge_assets.core.ingest.synthetic import (
    CONDITIONS,
    SANDBOX_STEPS,
    SEPARATION,
    planted_auc,
    shape,
    write_corpus,
    write_judgments,
)

REPO = Path(__file__).resolve().parents[1]


def recovered(db: Path) -> pl.DataFrame:
    import duckdb

    with duckdb.connect(str(db), read_only=True) as conn:
        if not conn.execute("select count(*) from duckdb_tables() where table_name = 'judge_metrics'").fetchone()[0]:
            return pl.DataFrame()  # a --select without the measurement: nothing recovered
        return conn.execute(
            "select judge, condition, value, lo, hi, n from main.judge_metrics where metric = 'roc_auc' "
            "order by judge, condition"
        ).pl()


def write_study(folder: Path, attempts: int, seed: int) -> tuple[float, Path]:
    """The corpus and the judgments (run in a process of its own: see main); the accepted share, the judges file."""
    labels = write_corpus(folder / "corpus", attempts, seed)
    return float(labels["accepted"].mean()), write_judgments(folder, labels, seed)  # type: ignore[arg-type]


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--attempts", type=int, default=100_000)
    parser.add_argument("--folder", type=Path, help="work folder (default: a new temporary folder)")
    parser.add_argument("--keep", action="store_true", help="keep the work folder")
    parser.add_argument("--seed", type=int, default=20261204)
    parser.add_argument("--limit-gb", type=float, default=2.0)
    parser.add_argument("--select", help="comma-separated assets, one step each (default: every step that applies)")
    parser.add_argument("--by", choices=("job", "asset"), default="job", help="a step is a job (default) or an asset")
    parser.add_argument(
        "--force", action="store_true", help="run every step even when Dagster finds it up to date (a finished study)"
    )
    args = parser.parse_args()
    folder = args.folder or Path(tempfile.mkdtemp(prefix="cojudge-rehearsal-"))
    folder.mkdir(parents=True, exist_ok=True)
    try:
        started = time.perf_counter()
        # Written in a process of its own: a child's peak RSS (os.wait4) is never below this process's peak at the
        # moment it starts (Linux carries the parent's high-water mark through the exec), and writing 10^6 attempts
        # here took this process to 1.07 GB: every step's figure was at least that
        judges = folder / "judges.yaml"
        if args.select and judges.exists() and (folder / "corpus").is_dir():
            # a step again on a finished study: its corpus and judgments as they are (writing them again would
            # touch every file the study's ingest read, and take a 10^6 study's ~25 s and 1 GB for nothing)
            print(f"corpus: the study in {folder} as it is (--select: nothing written)", flush=True)
        else:
            with multiprocessing.get_context("spawn").Pool(1) as pool:
                accepted, judges = pool.apply(write_study, (folder, args.attempts, args.seed))
            print(
                f"corpus: {args.attempts} attempts ({'x'.join(map(str, shape(args.attempts)))} participants x "
                f"problems x turns), accepted {accepted:.3f}; {2 * len(CONDITIONS) * args.attempts} judgments; "
                f"written in {time.perf_counter() - started:.1f} s; this process's peak RSS {own_peak_mb():.0f} MB "
                "(no step's figure can be below it)",
                flush=True,
            )
        env = dict(
            os.environ,
            DAGSTER_HOME=str(folder / "home"),
            COJUDGE_CORPUS=str(folder / "corpus"),
            COJUDGE_LAYOUT="progsnap2",
            COJUDGE_JUDGES=str(judges),
            COJUDGE_DUCKDB=str(folder / "rehearsal.duckdb"),
            COJUDGE_CACHE=str(folder / "cache"),
        )
        (folder / "home").mkdir(exist_ok=True)
        shutil.copy(REPO / "dagster_home" / "dagster.yaml", folder / "home" / "dagster.yaml")
        logs = folder / "logs"
        logs.mkdir(exist_ok=True)
        uses: list[StepUse] = []
        if args.select:
            steps = {a: [a] for a in args.select.split(",")}
        else:
            steps = steps_in_order(env, by=args.by, leave_out=SANDBOX_STEPS)
        for step, assets in steps.items():
            command = [str(REPO / ".venv" / "bin" / "cojudge"), "materialize", "--select", ",".join(assets)]
            command += ["--force"] if args.force else []
            code, wall, cpu, peak = run_child(command, env, logs / f"{step}.log")
            output = (logs / f"{step}.log").read_text(errors="replace")
            lines = [line for line in output.splitlines() if line.strip()]
            use = StepUse(step, step_ok(code, output), wall, cpu, peak, lines[-1] if lines else "")
            uses.append(use)
            print(
                f"{step}: {'ok' if use.ok else 'FAILED'} {wall:.1f} s wall, {cpu:.1f} s CPU, {peak:.0f} MB peak "
                f"({use.last_line[:120]})",
                flush=True,
            )
        print()
        print_table(uses, args.limit_gb)
        if (folder / "rehearsal.duckdb").exists():
            found = recovered(folder / "rehearsal.duckdb")
            print("\nROC-AUC: planted vs recovered (judge_metrics, its interval)")
            for row in found.iter_rows(named=True):
                planted = planted_auc(SEPARATION.get(row["judge"], {}).get(row["condition"], float("nan")))
                inside = row["lo"] is not None and row["lo"] <= planted <= row["hi"]
                print(
                    f"  {row['judge']:<8} {row['condition']:<10} planted {planted:.4f}  recovered {row['value']:.4f} "
                    f"[{row['lo']:.4f}, {row['hi']:.4f}] n={row['n']}  {'covers' if inside else 'MISSES'}"
                )
        with open("/proc/loadavg") as load:
            print(f"load average: {load.read().split()[:3]}")
    finally:
        if not args.keep and not args.folder:
            shutil.rmtree(folder, ignore_errors=True)


if __name__ == "__main__":
    main()
