"""Loading the Definitions pays only for what every step uses: the heavy libraries (scikit-learn, statsmodels,
matplotlib, lifelines, litellm, tree-sitter, codebleu, scipy's stats and sparse modules) are imported by the
functions that use them, not when a Dagster run process loads the code location. The time this saves is printed by
bench/startup.py; this test checks which modules are loaded, in a fresh interpreter (not how long it takes)."""

from __future__ import annotations

import json
import os
import subprocess
import sys

from cojudge_tests.conftest import REPO

HEAVY = (
    "sklearn",
    "statsmodels",
    "matplotlib",
    "lifelines",
    "litellm",
    "tree_sitter",
    "codebleu",
    "krippendorff",
    "scipy.stats",
    "scipy.sparse",
    "pandas",
    "rapidfuzz",
)

LOAD_DEFINITIONS = f"""
import json, sys
from cojudge_assets.definitions import defs
definitions = defs()
assert definitions.resolve_all_asset_keys(), "the Definitions hold no asset"
print(json.dumps(sorted(m for m in sys.modules if m.split(".")[0] in {sorted({h.split(".")[0] for h in HEAVY})!r})))
"""


def _loaded_after_definitions(tmp_path) -> set[str]:
    env = {
        **os.environ,
        "DAGSTER_HOME": str(tmp_path),
        "COJUDGE_DUCKDB": str(tmp_path / "cojudge.duckdb"),
        "PYTHONPATH": os.pathsep.join(filter(None, [str(REPO), os.environ.get("PYTHONPATH")])),
    }
    done = subprocess.run(
        [sys.executable, "-c", LOAD_DEFINITIONS], cwd=REPO, env=env, capture_output=True, text=True, timeout=300
    )
    assert done.returncode == 0, done.stderr[-3000:]
    return set(json.loads(done.stdout.strip().splitlines()[-1]))


def test_loading_the_definitions_imports_no_heavy_library(tmp_path):
    loaded = _loaded_after_definitions(tmp_path)
    heavy = sorted(name for name in HEAVY if name in loaded)
    assert heavy == [], f"loading the Definitions imported {heavy}: import them inside the functions that use them"


def test_the_heavy_libraries_still_load_where_they_are_used():
    # the lazy imports name modules that exist: a step that draws or fits gets its library on first use
    from cojudge_assets.core.report import plots
    from cojudge_assets.core.stats import metrics

    fig, _ = plots.subplots()
    plots._pyplot().close(fig)
    assert "matplotlib.pyplot" in sys.modules
    assert metrics.UndefinedMetricWarning.__module__ == "sklearn.exceptions"
