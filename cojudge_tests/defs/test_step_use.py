"""The step line's figures (driver.py StepUse): CPU time of the process and of the processes it waited for, and
the process's own peak during the step, reset at its start (a step after a larger one shows its own peak)."""

from __future__ import annotations

import json
import subprocess
import sys

import pytest

from cojudge_assets.driver import StepUse, _reset_peak


def test_cpu_counts_the_process_and_the_children_it_waited_for():
    use = StepUse.start()
    subprocess.run([sys.executable, "-c", "sum(i * i for i in range(3_000_000))"], check=True)
    total = sum(i for i in range(1_000_000))
    use.stop()
    assert total > 0
    assert use.cpu_s >= 0.1  # the child's loop alone takes more than this
    assert use.wall_s >= use.cpu_s * 0.2
    assert f"cpu {use.cpu_s:.1f} s" in str(use)


PEAKS = """
import json
from cojudge_assets.driver import StepUse
big = StepUse.start()
block = b"x" * (400 * 1024 * 1024)  # written: resident
big.stop()
del block
small = StepUse.start()
other = b"x" * (20 * 1024 * 1024)
small.stop()
print(json.dumps([big.peak_mb, small.peak_mb, str(small)]))
"""


@pytest.mark.skipif(not _reset_peak(), reason="no /proc/self/clear_refs to reset the peak")
def test_peak_is_the_steps_own():
    # in a fresh interpreter: a test process that freed memory earlier serves a new block from pages already
    # resident, so its peak would not move (the full check failed so, after the heavier tests)
    done = subprocess.run([sys.executable, "-c", PEAKS], capture_output=True, text=True, timeout=120, check=True)
    big, small, line = json.loads(done.stdout.splitlines()[-1])
    assert big is not None and small is not None
    assert big - small >= 300  # the second step's peak does not carry the first's 400 MB
    assert f"peak {small:,.0f} MB" in line
