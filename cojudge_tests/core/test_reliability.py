"""Krippendorff's interval alpha in O(n) (core/stats/reliability.py) against the krippendorff package."""

from __future__ import annotations

import math

import krippendorff
import numpy as np
import pytest

from cojudge_assets.core.stats.reliability import interval_alpha


@pytest.mark.parametrize("coders", [2, 3, 5])
def test_equals_the_package_with_missing_values_and_ties(coders):
    rng = np.random.default_rng(coders)
    for _ in range(10):
        data = np.round(rng.normal(3, 1.5, (coders, 80)), 1)  # ties, as scores on a scale have
        data[rng.random(data.shape) < 0.25] = np.nan  # some units with one value only: not pairable
        expected = krippendorff.alpha(reliability_data=data, level_of_measurement="interval")
        assert interval_alpha(data) == pytest.approx(expected, rel=1e-9, abs=1e-12)


def test_large_offsets_keep_their_digits():
    rng = np.random.default_rng(7)
    data = rng.integers(1, 6, (2, 50)).astype(float)
    shifted = data + 1e6
    assert interval_alpha(shifted) == pytest.approx(
        krippendorff.alpha(reliability_data=data, level_of_measurement="interval"), rel=1e-9
    )


def test_no_pairable_unit_or_no_variation_is_nan():
    assert math.isnan(interval_alpha(np.array([[1.0, np.nan], [np.nan, 2.0]])))
    assert math.isnan(interval_alpha(np.full((2, 5), 3.0)))


def test_bad_shapes_and_infinities_are_refused():
    with pytest.raises(ValueError, match="coders, units"):
        interval_alpha(np.ones(4))
    with pytest.raises(ValueError, match="finite or nan"):
        interval_alpha(np.array([[1.0, np.inf], [1.0, 2.0]]))
