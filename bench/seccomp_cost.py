"""The per-run cost of the sandbox's seccomp filter: ``/bin/true`` run through ``run_sandboxed`` with and without it.

Runs alternate (with, without, with, ...) so both see the same load; ``COJUDGE_SECCOMP=off`` is read at every
run and takes the filter away (its BPF program is built once per process, before the timing, so that cost is
not in any run). It prints the median wall time of a whole sandboxed run each way, the median of the paired
differences, and the same for the CPU the run's control group counted (the program's own, start-up excluded),
and the machine's load average. Then the cost inside a program: a loop of 2,000,000 ``getppid`` calls (each
passes the filter), the run's CPU with and without, median of ``--loops`` runs each way. Without bubblewrap
the runner installs the filter; ``--no-bwrap`` measures that path (root only: the uid-only mode).

    nice -n 5 .venv/bin/python bench/seccomp_cost.py            # 300 runs each way
    nice -n 5 .venv/bin/python bench/seccomp_cost.py --runs 1000
"""

from __future__ import annotations

import argparse
import contextlib
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from datetime import UTC, datetime
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))  # this checkout's package, not another one installed in the environment

from cojudge_assets.core.execution import sandbox  # noqa: E402
from cojudge_assets.core.execution.sandbox import Limits, run_sandboxed  # noqa: E402
from cojudge_assets.core.execution.syscall_filter import filter_support  # noqa: E402
from cojudge_assets.settings import cache_folder  # noqa: E402

SYSCALL_LOOP = r"""#include <unistd.h>
#include <sys/syscall.h>
int main(void) { for (long i = 0; i < 2000000; i++) syscall(SYS_getppid); return 0; }
"""


@contextlib.contextmanager
def scratch_box() -> Iterator[Path]:
    """A scratch folder ``box`` the sandbox's uid can enter (mkdtemp makes 0700 folders), removed afterwards."""
    work = Path(tempfile.mkdtemp(prefix="cojudge-bench-"))
    try:
        box = work / "box"
        box.mkdir()
        os.chmod(work, 0o755)
        os.chmod(box, 0o755)
        yield box
    finally:
        shutil.rmtree(work, ignore_errors=True)


def one_run(box: Path, *, seccomp: bool, argv: tuple[str, ...] = ("/bin/true",)) -> tuple[float, float]:
    """(wall seconds of the whole run_sandboxed call, the run's CPU seconds) of one run of ``argv``."""
    if seccomp:
        os.environ.pop("COJUDGE_SECCOMP", None)
    else:
        os.environ["COJUDGE_SECCOMP"] = "off"
    started = time.perf_counter()
    limits = Limits(cpu_s=20, wall_s=60)
    out, err = box.parent / "out", box.parent / "err"
    result = run_sandboxed(
        list(argv), box=box, limits=limits, stdout_path=out, stderr_path=err, build_dir=cache_folder()
    )
    wall = time.perf_counter() - started
    if not result.ok or result.isolation is None or result.isolation.seccomp != seccomp:
        raise SystemExit(f"the run did not go as asked (seccomp={seccomp}): {result}")
    return wall, result.cpu_s


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--runs", type=int, default=300, help="runs each way (default 300)")
    parser.add_argument("--loops", type=int, default=15, help="runs each way of the getppid loop (default 15)")
    parser.add_argument("--no-bwrap", action="store_true", help="the mode without bubblewrap (the runner installs it)")
    args = parser.parse_args()
    support = filter_support()
    if support.bpf is None:
        raise SystemExit(f"no seccomp filter on this machine: {support.reason}")
    if args.no_bwrap:
        if os.geteuid() != 0:
            raise SystemExit("--no-bwrap is the uid-only mode: run as root")
        sandbox.bwrap_path = lambda: None  # type: ignore[assignment]
    with scratch_box() as box:
        for _ in range(10):  # warm-up: the runner's build, bwrap's probe, the page cache
            one_run(box, seccomp=True)
            one_run(box, seccomp=False)
        with_filter: list[tuple[float, float]] = []
        without: list[tuple[float, float]] = []
        for i in range(args.runs):
            order = (True, False) if i % 2 == 0 else (False, True)
            for seccomp in order:
                (with_filter if seccomp else without).append(one_run(box, seccomp=seccomp))
        (box / "loop.c").write_text(SYSCALL_LOOP)
        subprocess.run(["gcc", "-O2", "-o", str(box / "loop"), str(box / "loop.c")], check=True)
        loop_on: list[float] = []
        loop_off: list[float] = []
        for i in range(args.loops):
            for seccomp in (True, False) if i % 2 == 0 else (False, True):
                (loop_on if seccomp else loop_off).append(one_run(box, seccomp=seccomp, argv=("./loop",))[1])
    mode = "uid-only (the runner installs the filter)" if args.no_bwrap else f"{sandbox.isolation_level()}"
    ms = 1000.0
    wall_on = statistics.median(w for w, _ in with_filter) * ms
    wall_off = statistics.median(w for w, _ in without) * ms
    wall_diff = statistics.median((a[0] - b[0]) for a, b in zip(with_filter, without)) * ms
    cpu_on = statistics.median(c for _, c in with_filter) * ms
    cpu_off = statistics.median(c for _, c in without) * ms
    cpu_diff = statistics.median((a[1] - b[1]) for a, b in zip(with_filter, without)) * ms
    q = statistics.quantiles([(a[0] - b[0]) * ms for a, b in zip(with_filter, without)], n=4)
    print(
        f"{datetime.now(UTC):%Y-%m-%d %H:%M} UTC, load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} cores, "
        f"mode {mode}, {len(support.bpf) // 8} BPF instructions, {args.runs} runs each way"
    )
    print(f"wall per run (median): with filter {wall_on:.2f} ms, without {wall_off:.2f} ms")
    print(f"  paired difference: median {wall_diff:+.2f} ms (quartiles {q[0]:+.2f} / {q[2]:+.2f} ms)")
    print(f"run's CPU (median): with filter {cpu_on:.3f} ms, without {cpu_off:.3f} ms; paired {cpu_diff:+.3f} ms")
    on, off = statistics.median(loop_on), statistics.median(loop_off)
    print(
        f"2,000,000 getppid calls, run's CPU (median of {args.loops}): with filter {on:.3f} s, without {off:.3f} s: "
        f"{(on - off) / 2e6 * 1e9:+.1f} ns per call"
    )


if __name__ == "__main__":
    main()
