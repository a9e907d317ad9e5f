"""One headless chromium for the browser tests of this folder (see browser.py), and the demo study's DuckDB."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cojudge_tests.conftest import REPO
from cojudge_tests.report.browser import launch_chromium

DEMO_STUDY_TIMEOUT_S = 1800  # a cold run of the whole demo study: label audit, judging, ~700 mutants


@pytest.fixture(scope="session")
def chromium():
    with launch_chromium() as browser:
        yield browser


@pytest.fixture(scope="session")
def demo_study(request) -> Path:
    """The DuckDB file of the demo study, made by the README's run command (``cojudge materialize``) in pytest's
    cache folder (.pytest_cache/d/demo-study) with a Dagster home beside it. The first session runs the study
    cold (minutes); later sessions run the same command warm, which recomputes only the steps whose code or
    inputs changed, so the tables are those of the code under test."""
    folder = request.config.cache.mkdir("demo-study")
    db, home = folder / "cojudge.duckdb", folder / "dagster_home"
    home.mkdir(exist_ok=True)
    shutil.copy(REPO / "dagster_home" / "dagster.yaml", home / "dagster.yaml")
    # this checkout's code, also in the runs' subprocesses (an editable install may point at another checkout)
    env = {**os.environ, "DAGSTER_HOME": str(home),
           "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")]))}
    done = subprocess.run([sys.executable, "-m", "cojudge_assets.cli", "materialize", "--duckdb", str(db)],
                          cwd=REPO, env=env, capture_output=True, text=True, timeout=DEMO_STUDY_TIMEOUT_S)
    assert done.returncode == 0, f"the demo study failed in {folder}:\n{done.stdout[-3000:]}\n{done.stderr[-3000:]}"
    return db
