"""Freshness policies for a study with a cadence (issue 37): with ``COJUDGE_FRESHNESS_HOURS`` the ingest's
``attempts`` and the ``report`` carry a time-window policy (late after that many hours, a warning from three
quarters of it), which Dagster's freshness evaluation (the daemon's, on by default in open-source Dagster) and the
asset page of the UI show; unset, no asset carries one (a study that is stable is not late); a bad value is
refused naming the variable."""

from __future__ import annotations

from datetime import timedelta

import dagster as dg
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.automation import FRESHNESS_ASSETS
from cojudge_assets.settings import FRESHNESS_VARIABLE, variable_problems
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2


def _specs(tmp_path) -> dict[str, dg.AssetSpec]:
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 3)
    judges = write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:9/v1")
    defs = build_definitions(corpus=corpus, layout="progsnap2", database=tmp_path / "c.duckdb", judges_path=judges)
    return {spec.key.to_user_string(): spec for spec in defs.resolve_all_asset_specs()}


def test_a_cadence_gives_the_ingest_and_the_report_a_time_window_policy(tmp_path, monkeypatch):
    monkeypatch.setenv(FRESHNESS_VARIABLE, "6")
    specs = _specs(tmp_path)
    with_policy = {name for name, spec in specs.items() if spec.freshness_policy is not None}
    assert with_policy == set(FRESHNESS_ASSETS) == {"attempts", "report"}
    for name in FRESHNESS_ASSETS:
        expected = dg.FreshnessPolicy.time_window(fail_window=timedelta(hours=6), warn_window=timedelta(hours=4.5))
        assert specs[name].freshness_policy == expected, name
        assert specs[name].automation_condition is not None  # the policy is added beside the condition


def test_without_a_cadence_no_asset_has_a_policy(tmp_path, monkeypatch):
    monkeypatch.delenv(FRESHNESS_VARIABLE, raising=False)
    assert not [name for name, spec in _specs(tmp_path).items() if spec.freshness_policy is not None]


@pytest.mark.parametrize("value", ["0", "-2", "soon", "inf"])
def test_a_bad_cadence_is_refused_naming_the_variable(tmp_path, monkeypatch, value):
    assert variable_problems({FRESHNESS_VARIABLE: value}, profile=False) == [
        f"{FRESHNESS_VARIABLE}={value!r}: expected a positive number of hours"
    ]
    monkeypatch.setenv(FRESHNESS_VARIABLE, value)
    with pytest.raises(ValueError, match=f"{FRESHNESS_VARIABLE}={value!r}: expected a positive number of hours"):
        _specs(tmp_path)
