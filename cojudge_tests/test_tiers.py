"""The test tiers: conftest marks a test slow by what it uses (fixtures, the real corpora, processes it starts),
following the test helpers it calls; everything else is the fast tier (`pytest -m "not slow"`)."""

from __future__ import annotations

import subprocess
from pathlib import Path
from types import SimpleNamespace

from cojudge_tests.conftest import REPO, SHARED_CORPORA, slow_reason

ITSP = SHARED_CORPORA / "itsp-c"
HERE = REPO / "cojudge_tests" / "test_tiers.py"


def fake_item(fn, *fixtures: str, path: Path = HERE):
    return SimpleNamespace(function=fn, fixturenames=list(fixtures), path=path)


def _count_pages() -> int:
    return sum(1 for _ in ITSP.rglob("*.html"))


def _run_the_command(db: Path) -> None:
    subprocess.run(["cojudge", "materialize", "--duckdb", str(db)], check=False)


def example_reading_the_corpora_through_a_helper():
    assert _count_pages() >= 0


def example_running_the_command(tmp_path):
    _run_the_command(tmp_path / "x.duckdb")


def example_plain():
    """Mentions materialize and dagster-daemon in prose only: no process is started."""
    assert sum([1, 2]) == 3


def test_a_test_of_the_demo_study_or_a_browser_is_slow():
    assert "demo_study" in (slow_reason(fake_item(example_plain, "demo_study", "tmp_path")) or "")
    assert "chromium" in (slow_reason(fake_item(example_plain, "chromium")) or "")


def test_the_real_corpora_and_the_command_are_found_through_helpers():
    assert "SHARED_CORPORA" in (slow_reason(fake_item(example_reading_the_corpora_through_a_helper)) or "")
    assert "materialize" in (slow_reason(fake_item(example_running_the_command, "tmp_path")) or "")


def test_a_plain_test_stays_in_the_fast_tier_and_heavy_modules_do_not():
    assert slow_reason(fake_item(example_plain, "tmp_path")) is None
    sandbox = REPO / "cojudge_tests" / "faults" / "test_sandbox_faults.py"
    assert "test_sandbox_faults.py" in (slow_reason(fake_item(example_plain, path=sandbox)) or "")
