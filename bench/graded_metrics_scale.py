"""``graded_metrics`` (core/graded/metrics.py) on generated scores: time, CPU and peak memory at several sizes.

Each size runs in a child process of its own (peak RSS from os.wait4, so one size's memory does not hide the
next): ``programs`` graded programs in seeds of 5, ceilings 1..5, ``judges`` judges x 2 answer kinds, every score
a distinct continuous value (the shape that made the krippendorff package ask for 32.4 GiB), 1,000 resamples.
The demo's shape is 605 programs x 7 judges.

    .venv/bin/python bench/graded_metrics_scale.py [--sizes 605x7,5000x2,20000x2] [--resamples 1000]
"""

from __future__ import annotations

import argparse
import os
import subprocess
import sys
import time

CHILD = """
import sys, time
import numpy as np, polars as pl
from cojudge_assets.core.graded.metrics import graded_metrics
n, judges, resamples = map(int, sys.argv[1:4])
rng = np.random.default_rng(0)
ceiling = rng.integers(1, 6, n)
frames = [
    pl.DataFrame({"judge": f"j{j}", "answer": answer, "program_uid": [f"p{i}" for i in range(n)],
                  "seed_uid": [f"s{i // 5}" for i in range(n)], "ceiling": ceiling,
                  "score": 5 / (1 + np.exp(-(ceiling - 3 + rng.normal(0, 1, n))))})
    for j in range(judges) for answer in ("p_accept", "rubric")
]
scores = pl.concat(frames)
started, cpu = time.perf_counter(), time.process_time()
table = graded_metrics(scores, n_resamples=resamples)
print(f"{time.perf_counter() - started:.2f} {time.process_time() - cpu:.2f} {len(table)}")
"""


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--sizes", default="605x7,5000x2,20000x2", help="programs x judges, comma-separated")
    parser.add_argument("--resamples", type=int, default=1000)
    args = parser.parse_args()
    with open("/proc/loadavg") as load:
        print(f"{time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}; load average {load.read().split()[:3]}")
    print(f"{'programs':>8} {'judges':>6} {'wall s':>8} {'cpu s':>8} {'child peak MB':>14}  rows")
    for size in args.sizes.split(","):
        programs, judges = (int(x) for x in size.split("x"))
        child = subprocess.Popen(
            [sys.executable, "-c", CHILD, str(programs), str(judges), str(args.resamples)],
            stdout=subprocess.PIPE,
            text=True,
        )
        out = child.stdout.read() if child.stdout else ""
        _, status, usage = os.wait4(child.pid, 0)
        child.returncode = os.waitstatus_to_exitcode(status)
        if child.returncode != 0:
            print(f"{programs:>8} {judges:>6} FAILED (exit {child.returncode})")
            continue
        wall, cpu, rows = out.split()
        print(f"{programs:>8} {judges:>6} {float(wall):8.2f} {float(cpu):8.2f} {usage.ru_maxrss / 1024:14.0f}  {rows}")
    with open("/proc/loadavg") as load:
        print(f"load average at the end {load.read().split()[:3]}")


if __name__ == "__main__":
    main()
