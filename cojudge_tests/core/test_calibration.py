"""Calibration: ECE (plain and bootstrap-weighted), reliability table, scale validity, recalibration."""

from __future__ import annotations

import doctest

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import roc_auc_score

from cojudge_assets.core.measurement import calibration
from cojudge_assets.core.measurement.calibration import (
    ECE_BINS,
    THRESHOLD_GRID,
    bin_index,
    ece,
    fit_recalibration,
    recalibrate_oof,
    recalibration_summary,
    reliability_table,
    scale_validity,
)

METHODS = ("isotonic", "platt")


def random_judge(seed: int, n: int = 400, *, power: float = 1.0) -> tuple[np.ndarray, np.ndarray]:
    """Scores on a coarse-ish grid (ties, exact 0 and 1 included) and labels y ~ Bernoulli(p ** power)."""
    rng = np.random.default_rng(seed)
    p = np.round(rng.uniform(size=n), 2)
    p[:5] = [0.0, 0.0, 1.0, 1.0, 0.5]
    y = (rng.uniform(size=n) < p**power).astype(int)
    return p, y


def ece_reference(p, y, n_bins=ECE_BINS) -> float:
    """ECE written out bin by bin, the way the formula reads."""
    total = 0.0
    for b in range(n_bins):
        members = [i for i in range(len(p)) if min(int(p[i] * n_bins), n_bins - 1) == b]
        if not members:
            continue
        observed = sum(y[i] for i in members) / len(members)
        predicted = sum(p[i] for i in members) / len(members)
        total += len(members) / len(p) * abs(observed - predicted)
    return total


def test_doctests():
    assert doctest.testmod(calibration).failed == 0


def test_ece_by_hand():
    # bins of width 1/15: 0.05 -> bin 0, 0.5 -> bin 7 (7.5 floored), 1.0 -> bin 14 (the last, by the min)
    # bin 0:  2 attempts, observed 1/2, predicted 0.05 -> 2/6 * 0.45      = 0.15
    # bin 7:  3 attempts, observed 2/3, predicted 0.5  -> 3/6 * 1/6       = 1/12
    # bin 14: 1 attempt,  observed 1,   predicted 1.0  -> 1/6 * 0         = 0
    # ECE = 0.15 + 1/12
    p = [0.05, 0.05, 0.5, 0.5, 0.5, 1.0]
    y = [0, 1, 1, 1, 0, 1]
    assert ece(y, p) == pytest.approx(0.15 + 1 / 12, abs=1e-12)
    assert isinstance(ece(y, p), float)


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("n_bins", [1, 10, 15])
def test_ece_matches_loop_reference(seed, n_bins):
    p, y = random_judge(seed, n=200)
    assert ece(y, p, n_bins=n_bins) == pytest.approx(ece_reference(p, y, n_bins), abs=1e-9)


def test_weighted_ece_equals_ece_on_repeated_rows():
    p, y = random_judge(7, n=60)
    rng = np.random.default_rng(8)
    w = rng.integers(0, 4, size=(5, p.size)).astype(float)
    w[:, :10] = 0.0  # some attempts never drawn
    w[2, ::2] = 0.0
    got = ece(y, p, sample_weight=w)
    assert isinstance(got, np.ndarray) and got.shape == (5,)
    for b in range(5):
        assert got[b] == pytest.approx(ece(np.repeat(y, w[b].astype(int)), np.repeat(p, w[b].astype(int))), abs=1e-9)


def test_unit_weights_equal_unweighted_and_empty_resample_is_nan():
    p, y = random_judge(9, n=50)
    w = np.vstack([np.ones(p.size), np.zeros(p.size)])
    got = ece(y, p, sample_weight=w)
    assert got[0] == pytest.approx(ece(y, p), abs=1e-12)
    assert np.isnan(got[1])
    assert np.isnan(ece([], []))


def test_weight_vector_gives_a_float_and_swapped_arguments_are_refused():
    p, y = random_judge(11, n=40)
    w = np.random.default_rng(12).integers(0, 3, size=p.size).astype(float)
    got = ece(y, p, sample_weight=w)
    assert isinstance(got, float)
    assert got == pytest.approx(ece(np.repeat(y, w.astype(int)), np.repeat(p, w.astype(int))), abs=1e-12)
    # labels first, as every metric of core/stats/metrics.py: probabilities in the labels' place are not labels
    with pytest.raises(ValueError, match="only 0 and 1"):
        ece(p, y)


def test_one_lands_in_last_bin():
    assert bin_index([0.0, 1 / 15 - 1e-12, 1 / 15 + 1e-12, 0.999, 1.0]).tolist() == [0, 0, 1, 14, 14]
    table = reliability_table([1.0, 1.0], [1, 0])
    assert table.filter(pl.col("n") > 0)["bin"].to_list() == [ECE_BINS - 1]


@pytest.mark.parametrize(
    ("p", "y", "message"),
    [
        ([0.5, 1.2], [0, 1], r"\[0, 1\]"),
        ([0.5, np.nan], [0, 1], r"\[0, 1\]"),
        ([0.5], [0, 1], "length"),
        ([0.5], [2], "only 0 and 1"),
    ],
)
def test_invalid_inputs_raise(p, y, message):
    with pytest.raises(ValueError, match=message):
        ece(y, p)


def test_reliability_table_counts_and_ece():
    p, y = random_judge(3)
    table = reliability_table(p, y)
    assert table.columns == ["bin", "lo", "hi", "n", "mean_p", "observed_rate"]
    assert table.height == ECE_BINS and table["n"].sum() == p.size
    empty = table.filter(pl.col("n") == 0)
    assert empty["mean_p"].null_count() == empty.height == empty["observed_rate"].null_count()
    filled = table.filter(pl.col("n") > 0)
    from_table = (filled["n"] / p.size * (filled["observed_rate"] - filled["mean_p"]).abs()).sum()
    assert from_table == pytest.approx(ece(y, p), abs=1e-12)
    # every mean predicted value lies inside its bin
    assert ((filled["mean_p"] >= filled["lo"]) & (filled["mean_p"] <= filled["hi"])).all()


def test_scale_validity_by_hand():
    p = [0.0, 0.3, 0.3, 0.7, 1.0, 1.0]
    y = [0, 0, 1, 1, 1, 0]
    # yhat = [p >= t]:  t in 0.01..0.30 -> [0,1,1,1,1,1] (tp 3, fp 2, tn 1, fn 0)
    #                   t in 0.31..0.70 -> [0,0,0,1,1,1] (tp 2, fp 1, tn 2, fn 1)
    #                   t in 0.71..0.99 -> [0,0,0,0,1,1] (tp 1, fp 1, tn 2, fn 2)
    # three distinct confusion matrices out of 99 thresholds
    assert scale_validity(p, y) == {
        "distinct_values": 4,
        "effective_rules": 3,
        "share_at_zero": pytest.approx(1 / 6),
        "share_at_one": pytest.approx(2 / 6),
    }


def test_scale_validity_bounds():
    # decisions [p >= t] are nested in t, so different decisions accept different numbers of attempts and
    # always give different confusion matrices: effective rules = distinct decision vectors over the grid
    assert scale_validity([0.4, 0.6], [0, 0])["effective_rules"] == 3  # accept both / only 0.6 / neither
    assert scale_validity([0.4, 0.4], [0, 1])["effective_rules"] == 2
    assert scale_validity([0.99, 0.99], [0, 1])["effective_rules"] == 1  # p = t is accepted, even at t = 0.99
    assert scale_validity([0.5] * 4, [0, 1, 0, 1]) == {
        "distinct_values": 1,
        "effective_rules": 2,
        "share_at_zero": 0.0,
        "share_at_one": 0.0,
    }
    # one value between every pair of neighbouring thresholds: each of the 99 thresholds is its own rule
    assert THRESHOLD_GRID.size == 99 and THRESHOLD_GRID[0] == 0.01 and THRESHOLD_GRID[-1] == 0.99
    between = THRESHOLD_GRID - 0.005
    assert scale_validity(between, np.arange(99) % 2)["effective_rules"] == 99


@pytest.mark.parametrize("method", METHODS)
def test_oof_ignores_held_out_labels(method):
    p, y = random_judge(11, n=300)
    folds = np.arange(p.size) % 5
    before = recalibrate_oof(p, y, folds, method)
    rng = np.random.default_rng(12)
    for k in range(5):
        held_out = np.flatnonzero(folds == k)
        shuffled = y.copy()
        shuffled[held_out] = rng.permutation(y[held_out])
        assert (shuffled != y).any()
        after = recalibrate_oof(p, shuffled, folds, method)
        np.testing.assert_array_equal(after[held_out], before[held_out])


@pytest.mark.parametrize("method", METHODS)
@pytest.mark.parametrize("seed", range(3))
def test_no_pair_inverted_within_a_fold(method, seed):
    p, y = random_judge(seed, n=300, power=2.0)
    folds = np.random.default_rng(seed).integers(0, 4, size=p.size)
    recalibrated = recalibrate_oof(p, y, folds, method)
    assert ((recalibrated >= 0) & (recalibrated <= 1)).all()
    for k in range(4):
        fold = folds == k
        pk, rk = p[fold], recalibrated[fold]
        lower = pk[:, None] < pk[None, :]
        assert not (lower & (rk[:, None] > rk[None, :])).any()


def test_platt_fit_on_all_keeps_roc_auc():
    p, y = random_judge(21, n=500)
    p = np.clip(p, 0.02, 0.98)  # away from the 1e-6 clip and sigmoid saturation, where ties could form
    recalibrated = fit_recalibration(p, y, "platt")(p)
    assert roc_auc_score(y, recalibrated) == pytest.approx(roc_auc_score(y, p), abs=1e-12)
    # the same through the out-of-fold path: fold 0 is fitted on fold 1, an identical copy of it
    twice = recalibrate_oof(np.concatenate([p, p]), np.concatenate([y, y]), np.repeat([0, 1], p.size), "platt")
    assert roc_auc_score(y, twice[: p.size]) == pytest.approx(roc_auc_score(y, p), abs=1e-12)


def test_isotonic_lowers_ece_on_miscalibrated_judge():
    p, y = random_judge(31, n=2000, power=3.0)  # the judge is overconfident: P(accept) = p ** 3
    folds = np.random.default_rng(32).integers(0, 5, size=p.size)
    raw, recalibrated = ece(y, p), ece(y, recalibrate_oof(p, y, folds, "isotonic"))
    assert recalibrated < raw / 2


@pytest.mark.parametrize("method", METHODS)
def test_one_class_training_gives_base_rate(method):
    p = [0.1, 0.2, 0.3, 0.4, 0.6]
    y = [1, 1, 0, 1, 0]
    folds = [0, 0, 1, 1, 1]  # fold 1 is fitted on fold 0, where every label is 1
    recalibrated = recalibrate_oof(p, y, folds, method)
    assert recalibrated[2:].tolist() == [1.0, 1.0, 1.0]


def test_recalibration_rejects_unknown_method_and_single_fold():
    p, y = random_judge(1, n=20)
    with pytest.raises(ValueError, match="sigmoid"):
        recalibrate_oof(p, y, np.arange(20) % 2, "sigmoid")
    with pytest.raises(ValueError, match="two folds"):
        recalibrate_oof(p, y, np.zeros(20, dtype=int), "isotonic")


def test_recalibration_summary():
    p, y = random_judge(41, n=600, power=3.0)
    folds = np.arange(p.size) % 5
    rows = recalibration_summary(p, y, folds)
    assert [r["method"] for r in rows] == ["none", "isotonic", "platt"]
    none, isotonic, platt = rows
    assert none == {
        "method": "none",
        "ece": ece(y, p),
        "brier": pytest.approx(np.mean((p - y) ** 2)),
        "roc_auc": pytest.approx(roc_auc_score(y, p)),
    }
    platt_p = recalibrate_oof(p, y, folds, "platt")
    assert platt["brier"] == pytest.approx(np.mean((platt_p - y) ** 2))
    assert isotonic["ece"] < none["ece"] and platt["ece"] < none["ece"]
    assert all(isinstance(r[k], float) for r in rows for k in ("ece", "brier", "roc_auc"))
