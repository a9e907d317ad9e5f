"""Judge metrics against scikit-learn, the grouped protocol's guarantees, and the trajectory bootstrap."""

from __future__ import annotations

import numpy as np
import polars as pl
import pytest
from sklearn.metrics import (average_precision_score, brier_score_loss, log_loss as sk_log_loss,
                             matthews_corrcoef, roc_auc_score)

from cojudge_assets.core import metrics as m
from cojudge_assets.core.measurement import MeasurementConfig, measure


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
    assert m.roc_auc(p, y) == pytest.approx(roc_auc_score(y, p), abs=1e-9)
    assert m.average_precision(p, y) == pytest.approx(average_precision_score(y, p), abs=1e-9)
    clipped = np.clip(p, m.LOGLOSS_CLIP, 1 - m.LOGLOSS_CLIP)
    assert m.log_loss(p, y) == pytest.approx(sk_log_loss(y, clipped), abs=1e-9)
    assert m.brier(p, y) == pytest.approx(brier_score_loss(y, p), abs=1e-9)
    yhat = (p >= 0.5).astype(np.int64)
    assert m.mcc(yhat, y) == pytest.approx(matthews_corrcoef(y, yhat), abs=1e-9)
    grid = [matthews_corrcoef(y, (p >= t).astype(int)) for t in m.THRESHOLD_GRID]
    assert m.in_fold_mcc(p, y) == pytest.approx(max(grid), abs=1e-9)


def test_hand_computed_auc_and_logloss_clip():
    # accepted scores 0.8, 0.4; rejected 0.4, 0.1: pairs (0.8>0.4)=1, (0.8>0.1)=1, (0.4=0.4)=0.5, (0.4>0.1)=1
    assert m.roc_auc(np.array([0.8, 0.4, 0.4, 0.1]), np.array([1, 1, 0, 0])) == pytest.approx(3.5 / 4)
    # an accepted attempt judged exactly 0 costs -log(1e-6) = 13.8155 nats, not infinity
    assert m.log_loss(np.array([0.0]), np.array([1])) == pytest.approx(-np.log(1e-6))


@pytest.mark.parametrize("fn", ["roc_auc", "average_precision", "log_loss", "brier", "in_fold_mcc"])
def test_a_weight_row_equals_repeating_the_attempts(fn):
    p, y, groups = data(5, n=120)
    w = np.concatenate(list(m.cluster_weights(m.cluster_codes(groups), 6, seed=3)))
    got = getattr(m, fn)(p, y, w)
    for b in range(len(w)):
        counts = w[b].astype(int)
        assert got[b] == pytest.approx(getattr(m, fn)(np.repeat(p, counts), np.repeat(y, counts)), abs=1e-9)
    yhat = (p >= 0.4).astype(np.int64)
    got = m.mcc(yhat, y, w)
    counts = w[0].astype(int)
    assert got[0] == pytest.approx(matthews_corrcoef(np.repeat(y, counts), np.repeat(yhat, counts)), abs=1e-9)


def test_folds_never_split_a_trajectory_and_score_every_attempt_once():
    _, _, groups = data(7, n=400)
    folds = m.grouped_folds(groups, k=10, seed=1)
    assert set(folds) == set(range(10)) and len(folds) == len(groups)  # each attempt in exactly one fold
    for g in np.unique(groups):
        assert len(set(folds[groups == g])) == 1
    assert np.array_equal(folds, m.grouped_folds(groups, k=10, seed=1))


def test_a_held_out_folds_threshold_ignores_its_own_labels():
    p, y, groups = data(8, n=400)
    folds = m.grouped_folds(groups, k=10, seed=2)
    _, thresholds = m.oof_decisions(p, y, folds)
    rng = np.random.default_rng(0)
    for fold in range(10):
        shuffled = y.copy()
        held = folds == fold
        shuffled[held] = rng.permutation(shuffled[held]) if held.sum() > 1 else 1 - shuffled[held]
        shuffled[held] = 1 - shuffled[held]  # flipping them all is the strongest change
        _, again = m.oof_decisions(p, shuffled, folds)
        assert again[fold] == thresholds[fold]
    # while changing the training folds' labels does move some thresholds
    _, flipped = m.oof_decisions(p, 1 - y, folds)
    assert flipped != thresholds


def test_the_bootstrap_resamples_trajectories_not_attempts():
    _, _, groups = data(9, n=200)
    clusters = m.cluster_codes(groups)
    w = np.concatenate(list(m.cluster_weights(clusters, 600, seed=4)))
    assert w.shape == (600, 200)
    for c in np.unique(clusters):
        members = w[:, clusters == c]
        assert np.all(members == members[:, :1])  # a trajectory is drawn whole, or not at all
    per_cluster = np.stack([w[:, clusters == c][:, 0] for c in np.unique(clusters)], axis=1)
    assert np.all(per_cluster.sum(1) == len(np.unique(clusters)))  # G draws of G clusters
    again = np.concatenate(list(m.cluster_weights(clusters, 600, seed=4)))
    other = np.concatenate(list(m.cluster_weights(clusters, 600, seed=5)))
    assert np.array_equal(w, again) and not np.array_equal(w, other)


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
                rows.append({"attempt_uid": f"u{i:04d}", "judge": judge, "condition": condition,
                             "p_accept": float(p[i]), "y": int(truth[i]), "participant": f"s{participants[i]}",
                             "problem_id": f"p{problems[i]}", "turn": i, "evidence": bool(i % 4),
                             "code": f"code {i // 2}"})
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
    auc = dict(zip(*first["judge_metrics"].filter((pl.col("metric") == "roc_auc") & (pl.col("condition") == "blind"))
                   .select("judge", "value").to_dict(as_series=False).values()))
    assert auc["a"] > auc["b"] > auc["c"] > 0.5  # less noise, better ranking


def test_differences_are_paired():
    table = synthetic_predictions()
    # the same predictions under two conditions: every paired difference is exactly zero, interval included
    same = pl.concat([table.filter(pl.col("condition") == "blind"),
                      table.filter(pl.col("condition") == "blind").with_columns(pl.lit("nonblind").alias("condition"))])
    effects = measure(same, MeasurementConfig(resamples=200, problem_resamples=50))["condition_effects"]
    delta = effects.filter(pl.col("metric") == "delta_roc_auc")
    assert (delta["value"] == 0).all() and (delta["lo"] == 0).all() and (delta["hi"] == 0).all()
    rank = effects.filter(pl.col("metric") == "rank_correlation")
    assert len(rank) == 3 and (rank["value"] - 1).abs().max() < 1e-12


def test_run_to_run_agreement_between_epochs():
    import krippendorff

    from cojudge_assets.core.measurement import run_to_run

    first = [0.1, 0.5, 0.9, 0.3]
    second = [0.2, 0.5, 0.8, 0.3]
    rows = [{"judge": "j", "condition": "blind", "attempt_uid": f"a{i}", "request_hash": f"h{i}", "epoch": epoch,
             "status": "ok", "p_accept": p} for epoch, values in ((0, first), (1, second))
            for i, p in enumerate(values)]
    rows.append({**rows[0], "judge": "once"})  # a judge run once has no run-to-run figure
    table = run_to_run(pl.DataFrame(rows))
    alpha = table.filter(pl.col("judge") == "j")["value"][0]
    expected = krippendorff.alpha(reliability_data=np.array([first, second]), level_of_measurement="interval")
    assert alpha == pytest.approx(expected, abs=1e-9) and 0.9 < alpha < 1
    assert table.filter(pl.col("judge") == "once")["value"][0] is None
