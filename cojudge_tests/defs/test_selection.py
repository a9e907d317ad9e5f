"""What ``cojudge materialize --select NAME`` selects (driver.resolve_selection)."""

from __future__ import annotations

import dagster as dg

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import resolve_selection


def test_one_asset_of_a_multi_asset_selects_the_assets_made_with_it():
    # `--select attempts` raised DagsterInvalidSubsetError: attempts, prompt_logs and quarantine are made by one
    # function that cannot run in part; the step memory bench selects one asset at a time
    chosen = resolve_selection(build_definitions(), ("attempts",))
    assert chosen == {dg.AssetKey("attempts"), dg.AssetKey("prompt_logs"), dg.AssetKey("quarantine")}
    assert resolve_selection(build_definitions(), ("problems",)) == {dg.AssetKey("problems")}
