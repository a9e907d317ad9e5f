"""The step line's figures (driver.py StepUse): CPU time of the process and of the processes it waited for, and
the process's own peak during the step, reset at its start (a step after a larger one shows its own peak)."""

from __future__ import annotations

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


@pytest.mark.skipif(not _reset_peak(), reason="no /proc/self/clear_refs to reset the peak")
def test_peak_is_the_steps_own():
    big = StepUse.start()
    block = bytearray(400 * 1024 * 1024)  # touched: resident
    big.stop()
    del block
    small = StepUse.start()
    other = bytearray(20 * 1024 * 1024)
    small.stop()
    del other
    assert big.peak_mb is not None and small.peak_mb is not None
    assert big.peak_mb - small.peak_mb >= 300  # the second step's peak does not carry the first's 400 MB
    assert f"peak {small.peak_mb:,.0f} MB" in str(small)
