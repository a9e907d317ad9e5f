"""The correlation table (core/measurement/correlation.py) at size: CPU seconds and peak RSS of one judge x condition,
every score distinct, trajectories of 3, in a child process per size and method.

Usage: .venv/bin/python bench/correlation_scale.py [--sizes 100000 1000000] [--resamples 1000]

``analytic``: corpus-level intervals analytic (analytic_from = 5000, measurement's default), the example level
resampled; ``bootstrap``: every interval resampled (analytic_from unset, as before 2026-12-05)."""

from __future__ import annotations

import argparse
import json
import resource
import subprocess
import sys
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def child(size: int, method: str, resamples: int) -> None:
    sys.path.insert(0, str(ROOT))
    import numpy as np
    import polars as pl

    from cojudge_assets.core.measurement.correlation import correlations

    rng = np.random.default_rng(size)
    trajectory = np.arange(size) // 3
    effect = rng.normal(size=size // 3 + 1)[trajectory]
    y = (effect + rng.normal(size=size) > 0).astype(np.int64)
    p = 1 / (1 + np.exp(-(effect + rng.normal(0, 1.5, size))))  # continuous: every score distinct
    frame = pl.DataFrame(
        {
            "judge": "j",
            "condition": "blind",
            "participant": (trajectory % 50_000).astype(str),
            "problem_id": (trajectory // 50_000 * 7 + trajectory % 7).astype(str),
            "language": "cpp",
            "y": y,
            "p_accept": p,
        }
    )
    start = time.process_time()
    table = correlations(frame, resamples=resamples, analytic_from=5000 if method == "analytic" else None)
    cpu = time.process_time() - start
    peak = resource.getrusage(resource.RUSAGE_SELF).ru_maxrss / 1024
    corpus = table.filter(pl.col("metric") == "kendall_tau_b_corpus").row(0, named=True)
    print(json.dumps({"cpu_s": round(cpu, 2), "peak_mb": round(peak), "tau_b": corpus, "distinct": len(np.unique(p))}))


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sizes", type=int, nargs="*", default=[100_000, 1_000_000])
    parser.add_argument("--resamples", type=int, default=1000)
    parser.add_argument("--child", nargs=2)
    args = parser.parse_args()
    if args.child:
        return child(int(args.child[0]), args.child[1], args.resamples)
    load = Path("/proc/loadavg").read_text().split()[0]
    print(f"load average {load}; {args.resamples} resamples; one judge x condition, every score distinct")
    print(f"{'predictions':>12} {'method':>10} {'cpu s':>8} {'peak MB':>8}  tau_b corpus [lo, hi]")
    for size in args.sizes:
        for method in ("analytic", "bootstrap"):
            out = subprocess.run(
                [sys.executable, __file__, "--child", str(size), method, "--resamples", str(args.resamples)],
                capture_output=True,
                text=True,
            )
            if out.returncode:
                print(f"{size:>12} {method:>10} failed: {out.stderr.strip().splitlines()[-1:]}")
                continue
            r = json.loads(out.stdout)
            t = r["tau_b"]
            print(
                f"{size:>12} {method:>10} {r['cpu_s']:>8} {r['peak_mb']:>8}  {t['value']:.4f} [{t['lo']:.4f}, "
                f"{t['hi']:.4f}] {t['ci_method']} ({r['distinct']:,} distinct scores)",
                flush=True,
            )


if __name__ == "__main__":
    main()
