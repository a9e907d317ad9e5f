"""A judge's requests-per-minute limit holds across the runs that judge it at once under the deployed profile:
each run's limiter gets the judge's rpm divided by the runs its provider may have at once (docs/operations.md,
"What the deployed profile does not do yet" had it as p x rpm before; found by bench/unit_costs.py)."""

from __future__ import annotations

import pytest

from cojudge_assets.judges.config import JudgeSpec, rate_of_one_run
from cojudge_assets.settings import provider_limits, runs_at_once


@pytest.mark.parametrize(
    ("limits", "provider", "runs"),
    [
        ("api.openai.com=4,*=2", "api.openai.com", 2),  # capped by the ceiling for all
        ("api.openai.com=4,*=8", "api.openai.com", 4),
        ("api.openai.com=4", "api.anthropic.com", 1),  # no limit: deployment config refuses it; one run
        ("*=3", "127.0.0.1:8001", 3),
        ("", "local", 1),
    ],
)
def test_runs_at_once_follows_the_queue_rules(limits, provider, runs):
    assert runs_at_once(provider_limits(limits), provider) == runs


def test_the_runs_together_keep_the_judges_rpm():
    spec = JudgeSpec(name="j", model="openai/gpt-5.2", rpm=500)
    for runs in (1, 2, 3, 7, 500):
        one = rate_of_one_run(spec, runs)
        assert one.rpm * runs <= 500 and one.rpm >= 1
        assert one.name == spec.name and one.model == spec.model
    assert rate_of_one_run(spec, 1000).rpm == 1  # never 0, which would mean no limit at all
    assert rate_of_one_run(spec, 1) is spec
    unlimited = JudgeSpec(name="u", model="openai/gpt-5.2", rpm=0)
    assert rate_of_one_run(unlimited, 4).rpm == 0
    assert spec.rpm == 500  # the judge's own spec is not changed
