"""Judge metrics against scikit-learn, their validation and undefined cases, the grouped protocol's guarantees,
and the trajectory bootstrap."""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import (
    average_precision_score,
    brier_score_loss,
    matthews_corrcoef,
    roc_auc_score,
)
from sklearn.metrics import (
    log_loss as sk_log_loss,
)

from cojudge_assets.core.measurement.measure import MeasurementConfig, measure
from cojudge_assets.core.stats import metrics as m
from cojudge_assets.core.stats.bootstrap import cluster_codes, cluster_counts, cluster_weights


def data(seed: int, n: int = 300, coarse: bool = True):
    rng = np.random.default_rng(seed)
    p = rng.random(n)
    if coarse:
        p = np.round(p, 1)  # many ties, some exact 0 and 1, as LLM judges answer
    y = (rng.random(n) < 0.2 + 0.6 * p).astype(np.int64)
    groups = rng.integers(0, n // 3, n)
    return p, y, groups


@pytest.mark.parametrize("seed", [0, 1, 2])
@pytest.mark.parametrize("coarse", [True, False])
def test_metrics_equal_scikit_learn(seed, coarse):
    p, y, _ = data(seed, coarse=coarse)
    weight = np.random.default_rng(seed).random(len(p)) * 3  # fractional weights, as scikit-learn takes them
    for sample_weight in (None, weight):
        assert m.roc_auc(y, p, sample_weight=sample_weight) == pytest.approx(
            roc_auc_score(y, p, sample_weight=sample_weight), abs=1e-12
        )
        assert m.average_precision(y, p, sample_weight=sample_weight) == pytest.approx(
            average_precision_score(y, p, sample_weight=sample_weight), abs=1e-12
        )
        clipped = np.clip(p, m.LOGLOSS_CLIP, 1 - m.LOGLOSS_CLIP)
        assert m.log_loss(y, p, sample_weight=sample_weight) == pytest.approx(
            sk_log_loss(y, clipped, sample_weight=sample_weight), abs=1e-12
        )
        assert m.brier(y, p, sample_weight=sample_weight) == pytest.approx(
            brier_score_loss(y, p, sample_weight=sample_weight), abs=1e-12
        )
        yhat = (p >= 0.5).astype(np.int64)
        assert m.mcc(y, yhat, sample_weight=sample_weight) == pytest.approx(
            matthews_corrcoef(y, yhat, sample_weight=sample_weight), abs=1e-12
        )
    grid = [matthews_corrcoef(y, (p >= t).astype(int)) for t in m.THRESHOLD_GRID]
    assert m.in_fold_mcc(y, p) == pytest.approx(max(grid), abs=1e-12)


def test_hand_computed_auc_and_logloss_clip():
    # accepted scores 0.8, 0.4; rejected 0.4, 0.1: pairs (0.8>0.4)=1, (0.8>0.1)=1, (0.4=0.4)=0.5, (0.4>0.1)=1
    assert m.roc_auc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1]) == pytest.approx(3.5 / 4)
    # an accepted attempt judged exactly 0 costs -log(1e-6) = 13.8155 nats, not infinity
    assert m.log_loss([1], [0.0]) == pytest.approx(-np.log(1e-6))


def test_ranking_metrics_properties():
    p, y, _ = data(11, coarse=False)
    auc = m.roc_auc(y, p)
    assert 0 <= auc <= 1 and 0 <= m.average_precision(y, p) <= 1  # bounded
    # ranks only: invariant under strictly increasing transforms of the score, which may leave [0, 1]
    assert m.roc_auc(y, np.log(p + 1e-3) * 7 - 2) == pytest.approx(auc, abs=1e-12)
    assert m.average_precision(y, p**3) == pytest.approx(m.average_precision(y, p), abs=1e-12)
    # swapping the classes, or reversing the order, mirrors ROC-AUC around 1/2
    assert m.roc_auc(1 - y, p) == pytest.approx(1 - auc, abs=1e-12)
    assert m.roc_auc(y, -p) == pytest.approx(1 - auc, abs=1e-12)
    assert m.mcc(y, y) == 1.0 and m.mcc(y, 1 - y) == -1.0
    assert m.brier(y, y.astype(float)) == 0.0 and m.brier(y, 1.0 - y) == 1.0


@pytest.mark.parametrize("fn", ["roc_auc", "average_precision", "log_loss", "brier", "in_fold_mcc"])
def test_a_weight_row_equals_repeating_the_attempts(fn):
    p, y, groups = data(5, n=120)
    w = np.concatenate(list(cluster_weights(cluster_codes(groups), 6, seed=3)))
    got = getattr(m, fn)(y, p, sample_weight=w)
    for b in range(len(w)):
        counts = w[b].astype(int)
        assert got[b] == pytest.approx(getattr(m, fn)(np.repeat(y, counts), np.repeat(p, counts)), abs=1e-9)
        assert got[b] == pytest.approx(getattr(m, fn)(y, p, sample_weight=w[b]), abs=1e-12)  # a vector: a float
    yhat = (p >= 0.4).astype(np.int64)
    got = m.mcc(y, yhat, sample_weight=w)
    counts = w[0].astype(int)
    assert got[0] == pytest.approx(matthews_corrcoef(np.repeat(y, counts), np.repeat(yhat, counts)), abs=1e-9)


# -- validation: every error names the argument ---------------------------------------------------------

PROBABILITY_METRICS = {"log_loss": "y_proba", "brier": "y_proba", "in_fold_mcc": "y_score", "grid_mcc": "y_score"}
SCORE_METRICS = {"roc_auc": "y_score", "average_precision": "y_score", **PROBABILITY_METRICS}
ALL_METRICS = {**SCORE_METRICS, "mcc": "y_pred"}


@pytest.mark.parametrize("fn, second", ALL_METRICS.items())
def test_inputs_of_different_lengths_are_rejected_naming_both(fn, second):
    with pytest.raises(ValueError, match=rf"y_true and {second} differ in length: 3 against 2"):
        getattr(m, fn)([1, 0, 1], [1, 0])


@pytest.mark.parametrize("fn", ALL_METRICS)
@pytest.mark.parametrize("label", [2, -1, 0.5, np.nan])
def test_labels_outside_0_1_are_rejected(fn, label):
    with pytest.raises(ValueError, match=r"y_true must hold binary labels 0 and 1"):
        getattr(m, fn)([1, 0, label], [1, 0, 1])


def test_decisions_outside_0_1_are_rejected():
    with pytest.raises(ValueError, match=r"y_pred must hold binary labels 0 and 1 .*found 0\.7"):
        m.mcc([1, 0, 1], [1, 0, 0.7])


@pytest.mark.parametrize("fn, second", PROBABILITY_METRICS.items())
@pytest.mark.parametrize("value", [1.5, -0.1])
def test_probabilities_outside_0_1_are_rejected(fn, second, value):
    with pytest.raises(ValueError, match=rf"{second} must hold probabilities in \[0, 1\]; found {value}"):
        getattr(m, fn)([1, 0, 1], [0.2, value, 0.9])


@pytest.mark.parametrize("fn, second", SCORE_METRICS.items())
@pytest.mark.parametrize("value", [np.nan, np.inf, -np.inf])
def test_nan_and_infinite_scores_are_rejected(fn, second, value):
    with pytest.raises(ValueError, match=rf"{second} must be finite; found {value} at index 1"):
        getattr(m, fn)([1, 0, 1], [0.2, value, 0.9])


def test_a_ranking_score_need_not_be_a_probability():
    assert m.roc_auc([1, 0, 1], [5.0, -3.0, 2.0]) == 1.0  # shifts and panel scores are ranked, not read as p


@pytest.mark.parametrize("fn", ALL_METRICS)
@pytest.mark.parametrize(
    "weight, message",
    [
        ([1.0, 1.0], r"sample_weight must have shape \(3,\) or \(B, 3\), got \(2,\)"),
        ([[[1.0, 1.0, 1.0]]], r"sample_weight must have shape \(3,\) or \(B, 3\), got \(1, 1, 3\)"),
        ([1.0, -1.0, 1.0], r"sample_weight must be finite and nonnegative"),
        ([[1.0, np.nan, 1.0]], r"sample_weight must be finite and nonnegative"),
    ],
)
def test_bad_sample_weights_are_rejected(fn, weight, message):
    with pytest.raises(ValueError, match=message):
        getattr(m, fn)([1, 0, 1], [1, 0, 1], sample_weight=weight)


def test_values_of_a_weighted_mean_are_checked():
    with pytest.raises(ValueError, match="values must be finite; found nan"):
        m.weighted_mean([0.5, np.nan])
    with pytest.raises(ValueError, match="values must be 1-D"):
        m.weighted_mean([[0.5]])


def test_select_threshold_and_folds_reject_what_they_cannot_use():
    with pytest.raises(ValueError, match="y_true is empty"):
        m.select_threshold([], [])
    with pytest.raises(ValueError, match=r"folds must have shape \(3,\)"):
        m.oof_decisions([1, 0, 1], [0.2, 0.4, 0.9], folds=[0, 1])
    with pytest.raises(ValueError, match="groups must hold at least 2 distinct groups"):
        m.grouped_folds([7, 7, 7])


# -- undefined cases: a named warning and NaN ------------------------------------------------------------


@pytest.mark.parametrize(
    "fn, y_true, y_score",
    [
        ("roc_auc", [1, 1, 1], [0.2, 0.5, 0.9]),
        ("roc_auc", [0, 0], [0.2, 0.5]),
        ("average_precision", [0, 0], [0.2, 0.5]),
        *[(name, [], []) for name in ("roc_auc", "average_precision", "log_loss", "brier", "mcc", "in_fold_mcc")],
    ],
)
def test_undefined_metrics_warn_and_return_nan(fn, y_true, y_score):
    with pytest.warns(m.UndefinedMetricWarning, match="undefined"):
        value = getattr(m, fn)(y_true, y_score)
    assert isinstance(value, float) and np.isnan(value)


def test_the_warning_is_scikit_learns_and_a_weight_vector_can_leave_a_metric_undefined():
    from sklearn.exceptions import UndefinedMetricWarning

    assert m.UndefinedMetricWarning is UndefinedMetricWarning  # one filter silences both
    with pytest.warns(UndefinedMetricWarning, match="ROC-AUC is undefined"):
        assert np.isnan(m.roc_auc([1, 0, 1], [0.9, 0.1, 0.8], sample_weight=[1.0, 0.0, 1.0]))


def test_average_precision_is_defined_with_accepted_attempts_only():
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert m.average_precision([1, 1], [0.2, 0.9]) == 1.0 == average_precision_score([1, 1], [0.2, 0.9])


def test_a_resample_that_draws_one_class_is_nan_without_a_warning():
    w = np.array([[1.0, 0.0, 1.0], [1.0, 1.0, 1.0], [0.0, 0.0, 0.0]])  # one class; both; nothing drawn
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        auc = m.roc_auc([1, 0, 1], [0.9, 0.1, 0.8], sample_weight=w)
        brier = m.brier([1, 0, 1], [0.9, 0.1, 0.8], sample_weight=w)
        mcc = m.mcc([1, 0, 1], [1, 0, 1], sample_weight=w)
    assert np.isnan(auc[0]) and auc[1] == 1.0 and np.isnan(auc[2])
    assert brier[0] == pytest.approx(0.025) and np.isnan(brier[2])
    assert mcc[1] == 1.0 and np.isnan(mcc[2])


# -- folds, thresholds and the bootstrap -----------------------------------------------------------------


def test_folds_never_split_a_trajectory_and_score_every_attempt_once():
    _, _, groups = data(7, n=400)
    folds = m.grouped_folds(groups, n_splits=10, seed=1)
    assert set(folds) == set(range(10)) and len(folds) == len(groups)  # each attempt in exactly one fold
    for g in np.unique(groups):
        assert len(set(folds[groups == g])) == 1
    assert np.array_equal(folds, m.grouped_folds(groups, n_splits=10, seed=1))


def test_a_held_out_folds_threshold_ignores_its_own_labels():
    p, y, groups = data(8, n=400)
    folds = m.grouped_folds(groups, n_splits=10, seed=2)
    _, thresholds = m.oof_decisions(y, p, folds=folds)
    rng = np.random.default_rng(0)
    for fold in range(10):
        shuffled = y.copy()
        held = folds == fold
        shuffled[held] = rng.permutation(shuffled[held]) if held.sum() > 1 else 1 - shuffled[held]
        shuffled[held] = 1 - shuffled[held]  # flipping them all is the strongest change
        _, again = m.oof_decisions(shuffled, p, folds=folds)
        assert again[fold] == thresholds[fold]
    # while changing the training folds' labels does move some thresholds
    _, flipped = m.oof_decisions(1 - y, p, folds=folds)
    assert flipped != thresholds


def test_the_bootstrap_resamples_trajectories_not_attempts():
    _, _, groups = data(9, n=200)
    clusters = cluster_codes(groups)
    w = np.concatenate(list(cluster_weights(clusters, 600, seed=4)))
    assert w.shape == (600, 200)
    for c in np.unique(clusters):
        members = w[:, clusters == c]
        assert np.all(members == members[:, :1])  # a trajectory is drawn whole, or not at all
    per_cluster = np.stack([w[:, clusters == c][:, 0] for c in np.unique(clusters)], axis=1)
    assert np.all(per_cluster.sum(1) == len(np.unique(clusters)))  # G draws of G clusters
    again = np.concatenate(list(cluster_weights(clusters, 600, seed=4)))
    other = np.concatenate(list(cluster_weights(clusters, 600, seed=5)))
    assert np.array_equal(w, again) and not np.array_equal(w, other)


def test_the_resamples_do_not_depend_on_how_they_are_cut_into_blocks():
    # correlation.py cuts them in blocks of 50, measurement in blocks of 250: the same seed, the same rows
    big = np.concatenate(list(cluster_counts(37, 600, 5)))
    small = np.concatenate(list(cluster_counts(37, 600, np.random.default_rng(5), block=50)))
    assert np.array_equal(big, small)


def synthetic_predictions(seed: int = 0, n: int = 240) -> pl.DataFrame:
    rng = np.random.default_rng(seed)
    participants = rng.integers(0, 20, n)
    problems = rng.integers(0, 6, n)
    truth = rng.random(n) < 0.35
    rows = []
    for judge, noise in (("a", 0.2), ("b", 0.35), ("c", 0.5)):
        for condition in ("blind", "nonblind"):
            p = np.clip(np.round(np.where(truth, 0.7, 0.3) + rng.normal(0, noise, n), 2), 0, 1)
            for i in range(n):
                rows.append(
                    {
                        "attempt_uid": f"u{i:04d}",
                        "judge": judge,
                        "condition": condition,
                        "p_accept": float(p[i]),
                        "y": int(truth[i]),
                        "participant": f"s{participants[i]}",
                        "problem_id": f"p{problems[i]}",
                        "turn": i,
                        "evidence": bool(i % 4),
                        "code_sha256": f"code {i // 2}",
                    }
                )
    return pl.DataFrame(rows)


def test_measure_is_seeded_and_its_intervals_bracket_the_estimates():
    config = MeasurementConfig(resamples=300, problem_resamples=100)
    first = measure(synthetic_predictions(), config)
    second = measure(synthetic_predictions(), config)
    for name in first:
        assert first[name].equals(second[name]), name
    jm = first["judge_metrics"].filter(pl.col("metric").is_in(["roc_auc", "brier", "mcc_oof"]))
    assert len(jm) == 3 * 2 * 3
    assert ((jm["lo"] <= jm["value"]) & (jm["value"] <= jm["hi"])).all()
    auc = dict(
        zip(
            *first["judge_metrics"]
            .filter((pl.col("metric") == "roc_auc") & (pl.col("condition") == "blind"))
            .select("judge", "value")
            .to_dict(as_series=False)
            .values()
        )
    )
    assert auc["a"] > auc["b"] > auc["c"] > 0.5  # less noise, better ranking


def test_differences_are_paired():
    table = synthetic_predictions()
    # the same predictions under two conditions: every paired difference is exactly zero, interval included
    same = pl.concat(
        [
            table.filter(pl.col("condition") == "blind"),
            table.filter(pl.col("condition") == "blind").with_columns(pl.lit("nonblind").alias("condition")),
        ]
    )
    effects = measure(same, MeasurementConfig(resamples=200, problem_resamples=50))["condition_effects"]
    delta = effects.filter(pl.col("metric") == "delta_roc_auc")
    assert (delta["value"] == 0).all() and (delta["lo"] == 0).all() and (delta["hi"] == 0).all()
    rank = effects.filter(pl.col("metric") == "rank_correlation")
    assert len(rank) == 3 and (rank["value"] - 1).abs().max() < 1e-12


def test_run_to_run_agreement_between_epochs():
    import krippendorff

    from cojudge_assets.core.measurement.measure import run_to_run

    first = [0.1, 0.5, 0.9, 0.3]
    second = [0.2, 0.5, 0.8, 0.3]
    rows = [
        {
            "judge": "j",
            "condition": "blind",
            "attempt_uid": f"a{i}",
            "request_hash": f"h{i}",
            "epoch": epoch,
            "status": "ok",
            "p_accept": p,
        }
        for epoch, values in ((0, first), (1, second))
        for i, p in enumerate(values)
    ]
    rows.append({**rows[0], "judge": "once"})  # a judge run once has no run-to-run figure
    table = run_to_run(pl.DataFrame(rows))
    alpha = table.filter(pl.col("judge") == "j")["value"][0]
    expected = krippendorff.alpha(reliability_data=np.array([first, second]), level_of_measurement="interval")
    assert alpha == pytest.approx(expected, abs=1e-9) and 0.9 < alpha < 1
    assert table.filter(pl.col("judge") == "once")["value"][0] is None
