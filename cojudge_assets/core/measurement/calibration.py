"""Calibration and scale validity of a judge's acceptance probabilities.

Conventions shared with the rest of the measurement code: ``p`` is a float
array (n,) of predicted acceptance probabilities in [0, 1], ``y`` an int array
(n,) of labels (1 = accepted by the contest judge). A statistic that takes an
optional bootstrap weight matrix ``w`` of shape (B, n) returns a float when
``w`` is None and an array (B,) otherwise, entry b being the statistic on the
data with attempt i repeated ``w[b, i]`` times. Degenerate denominators give
nan, never an exception.

Definitions (seed study, Section V):

- Bins: ``ECE_BINS = 15`` equal-width bins on [0, 1]; attempt i falls in bin
  ``min(floor(p_i * 15), 14)``, so p = 1.0 is in the last bin.
- Expected calibration error:
  ``ECE = sum_b (n_b / N) * |obs(b) - pred(b)|``, obs(b) the acceptance rate
  and pred(b) the mean p in bin b; empty bins contribute 0. Since
  ``n_b * obs(b) = sum of y in b``, this equals
  ``sum_b |sum_{i in b} (y_i - p_i)| / N``, which is how it is computed.
- Scale validity: how many distinct values a judge emits, how many distinct
  confusion matrices the 99 thresholds 0.01..0.99 (``yhat = [p >= t]``)
  actually produce ("effective rules"), and how much mass sits exactly at 0
  and at 1 (Section VI-A7).
- Out-of-fold recalibration: for each fold k an isotonic or Platt map is
  fitted on the attempts outside k and applied to k.

Order preservation. Both maps are monotone non-decreasing: isotonic
regression by construction, Platt's ``sigmoid(a * logit(p) + b)`` whenever its
fitted slope ``a`` is nonnegative (the case for any judge whose training folds
rank accepted attempts above rejected ones; a judge worse than chance gets
``a < 0`` and its order is reversed). So within a fold no pair of attempts is
ever put in the opposite order. Isotonic regression may tie neighbours (it
pools adjacent values into steps), and a tie can only move ROC-AUC by the pairs
it ties, each counting 1/2 in place of 0 or 1. Platt's map is strictly
increasing when its slope is positive, so within one fold the ROC-AUC is
exactly unchanged (up to ties that floating point creates: p is clipped to
[1e-6, 1 - 1e-6] before the logit, and the sigmoid saturates to 1.0 for very
large arguments). Across folds the maps differ, so the pooled out-of-fold
ROC-AUC can move for either method.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl

from cojudge_assets.core.stats.metrics import THRESHOLD_GRID, brier, roc_auc

ECE_BINS = 15
RECALIBRATION_METHODS = ("isotonic", "platt")
PLATT_CLIP = 1e-6

RELIABILITY_SCHEMA = {
    "bin": pl.Int64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
    "mean_p": pl.Float64,
    "observed_rate": pl.Float64,
}


def _validated(p, y) -> tuple[np.ndarray, np.ndarray]:
    """``p`` as float64 and ``y`` as int64, both 1-D of one length, or a ValueError."""
    p = np.asarray(p, dtype=float)
    y_raw = np.asarray(y)
    if p.ndim != 1 or y_raw.ndim != 1:
        raise ValueError(f"p and y must be 1-D, got shapes {p.shape} and {y_raw.shape}")
    if p.shape != y_raw.shape:
        raise ValueError(f"p and y differ in length: {p.size} against {y_raw.size}")
    if not np.all((p >= 0.0) & (p <= 1.0)):
        raise ValueError("p must lie in [0, 1] (no nan)")
    if y_raw.size and not np.isin(y_raw, (0, 1)).all():
        raise ValueError("y must contain only 0 and 1")
    return p, y_raw.astype(np.int64)


def _validated_weights(w, n: int) -> np.ndarray:
    w = np.asarray(w, dtype=float)
    if w.ndim != 2 or w.shape[1] != n:
        raise ValueError(f"w must have shape (B, {n}), got {w.shape}")
    if not np.all(np.isfinite(w) & (w >= 0)):
        raise ValueError("w must be finite and nonnegative")
    return w


def bin_index(p, n_bins: int = ECE_BINS) -> np.ndarray:
    """Equal-width bin of each probability: ``min(floor(p * n_bins), n_bins - 1)``.

    >>> bin_index([0.0, 0.5, 0.99, 1.0], 15).tolist()
    [0, 7, 14, 14]
    """
    if n_bins < 1:
        raise ValueError(f"n_bins must be at least 1, got {n_bins}")
    p = np.asarray(p, dtype=float)
    return np.minimum(np.floor(p * n_bins), n_bins - 1).astype(np.int64)


def ece(y_true, y_prob, *, n_bins: int = ECE_BINS, sample_weight=None):
    """Expected calibration error, ``sum_b (n_b / N) * |obs(b) - pred(b)|``, with the arguments of
    core/stats/metrics.py: labels first, then probabilities, ``sample_weight`` None, a vector (n,) or a bootstrap
    matrix (B, n) (then a (B,) array, one ECE per resample).

    Computed as ``sum_b |sum_{i in b} w_i (y_i - p_i)| / sum_i w_i`` for each
    weight row at once (one matrix product per bin sum); with no weights every
    weight is 1. N = 0 gives nan.

    Two attempts in bin 4 (p = 0.3, y = 1 and 0): |0.5 - 0.3| * 2/4; two in
    bin 13 (p = 0.9, y = 1 and 1): |1 - 0.9| * 2/4; ECE = 0.1 + 0.05.

    >>> round(ece([1, 0, 1, 1], [0.3, 0.3, 0.9, 0.9]), 12)
    0.15
    >>> ece([1, 1], [0.3, 0.9], sample_weight=[[2, 0], [0, 1]]).round(12).tolist()
    [0.7, 0.1]
    """
    p, y = _validated(y_prob, y_true)
    vector = sample_weight is not None and np.ndim(sample_weight) == 1
    if sample_weight is None:
        weights = np.ones((1, p.size))
    else:
        weights = _validated_weights(np.atleast_2d(np.asarray(sample_weight, dtype=float)), p.size)
    from scipy import sparse  # imported when an ECE is computed, not at start-up (as sklearn below)

    # a sparse one-hot (n, n_bins): a dense one was 120 MB at a million attempts
    one_hot = sparse.csr_array((np.ones(p.size), (np.arange(p.size), bin_index(p, n_bins))), shape=(p.size, n_bins))
    gap_per_bin = (one_hot.T @ (weights * (y - p)).T).T  # (B, n_bins): sum of w * (y - p) in each bin
    total = weights.sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        out = np.where(total > 0, np.abs(gap_per_bin).sum(axis=1) / total, np.nan)
    return float(out[0]) if sample_weight is None or vector else out


def reliability_table(p, y, n_bins: int = ECE_BINS) -> pl.DataFrame:
    """One row per bin: its edges, count, mean predicted and observed acceptance rate.

    ``mean_p`` and ``observed_rate`` are null where ``n`` is 0. The ECE is
    ``sum(n / N * |observed_rate - mean_p|)`` over the non-empty rows.

    >>> table = reliability_table([0.3, 0.3, 0.9], [1, 0, 1], 15)
    >>> table.filter(pl.col("n") > 0).select("bin", "n", "observed_rate").rows()
    [(4, 2, 0.5), (13, 1, 1.0)]
    """
    p, y = _validated(p, y)
    idx = bin_index(p, n_bins)
    n = np.bincount(idx, minlength=n_bins)
    sum_p = np.bincount(idx, weights=p, minlength=n_bins)
    sum_y = np.bincount(idx, weights=y.astype(float), minlength=n_bins)
    return pl.DataFrame(
        {
            "bin": np.arange(n_bins),
            "lo": np.arange(n_bins) / n_bins,
            "hi": np.arange(1, n_bins + 1) / n_bins,
            "n": n,
            "mean_p": [float(s / k) if k else None for s, k in zip(sum_p, n)],
            "observed_rate": [float(s / k) if k else None for s, k in zip(sum_y, n)],
        },
        schema=RELIABILITY_SCHEMA,
    )


def scale_validity(p, y) -> dict:
    """Resolution of a judge's output scale (seed study, Section VI-A7).

    ``distinct_values``: number of distinct p; ``effective_rules``: number of
    distinct confusion matrices (tp, fp, tn, fn) that the decisions
    ``yhat = [p >= t]`` produce over ``THRESHOLD_GRID`` (0.01..0.99);
    ``share_at_zero`` / ``share_at_one``: share of p exactly 0 / exactly 1
    (nan for no attempts).

    >>> scale_validity([0.0, 0.5, 0.5, 1.0], [0, 0, 1, 1])["effective_rules"]
    2
    """
    p, y = _validated(p, y)
    decisions = p[None, :] >= THRESHOLD_GRID[:, None]  # (99, n)
    accepted = y.astype(bool)[None, :]
    tp = (decisions & accepted).sum(axis=1)
    fp = (decisions & ~accepted).sum(axis=1)
    tn = (~decisions & ~accepted).sum(axis=1)
    fn = (~decisions & accepted).sum(axis=1)
    matrices = np.stack([tp, fp, tn, fn], axis=1)
    with np.errstate(invalid="ignore"):
        return {
            "distinct_values": int(np.unique(p).size),
            "effective_rules": int(np.unique(matrices, axis=0).shape[0]),
            "share_at_zero": float(np.mean(p == 0.0)) if p.size else float("nan"),
            "share_at_one": float(np.mean(p == 1.0)) if p.size else float("nan"),
        }


def _platt_feature(p: np.ndarray) -> np.ndarray:
    clipped = np.clip(p, PLATT_CLIP, 1.0 - PLATT_CLIP)
    return np.log(clipped / (1.0 - clipped)).reshape(-1, 1)


def fit_recalibration(p, y, method: str = "isotonic") -> Callable[[np.ndarray], np.ndarray]:
    """Fit a recalibration map on (p, y) and return it as a function of new p.

    ``"isotonic"``: ``IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip")``.
    ``"platt"``: logistic regression (C = 1e6, lbfgs) on ``logit(clip(p, 1e-6, 1 - 1e-6))``.
    If the training labels have one class only, the map is the constant base rate.
    ``recalibrate_oof`` applies this per fold.

    >>> fit_recalibration([0.2, 0.4, 0.6, 0.8], [0, 1, 0, 1], "isotonic")(np.array([0.1, 0.5, 0.9])).tolist()
    [0.0, 0.5, 1.0]
    """
    if method not in RECALIBRATION_METHODS:
        raise ValueError(f"unknown recalibration method {method!r}; expected one of {RECALIBRATION_METHODS}")
    p, y = _validated(p, y)
    if p.size == 0:
        raise ValueError("cannot fit a recalibration map on no attempts")
    if np.unique(y).size < 2:
        base_rate = float(y.mean())
        return lambda new_p: np.full(np.asarray(new_p).shape, base_rate)
    if method == "isotonic":
        from sklearn.isotonic import IsotonicRegression  # imported when a map is fitted, not at start-up

        iso = IsotonicRegression(y_min=0, y_max=1, out_of_bounds="clip", increasing=True).fit(p, y)
        return lambda new_p: np.asarray(iso.predict(np.asarray(new_p, dtype=float)), dtype=float)
    from sklearn.linear_model import LogisticRegression

    platt = LogisticRegression(C=1e6, solver="lbfgs", max_iter=1000).fit(_platt_feature(p), y)
    return lambda new_p: platt.predict_proba(_platt_feature(np.asarray(new_p, dtype=float)))[:, 1]


def recalibrate_oof(p, y, folds, method: str = "isotonic") -> np.ndarray:
    """Out-of-fold recalibrated probabilities: fold k mapped by a fit on the other folds.

    ``folds`` is an int array (n,) of fold ids (at least two distinct). See the
    module docstring for why neither map reorders attempts within a fold.

    >>> recalibrate_oof([0.2, 0.8, 0.2, 0.8], [0, 1, 0, 1], [0, 0, 1, 1], "isotonic").tolist()
    [0.0, 1.0, 0.0, 1.0]
    """
    if method not in RECALIBRATION_METHODS:
        raise ValueError(f"unknown recalibration method {method!r}; expected one of {RECALIBRATION_METHODS}")
    p, y = _validated(p, y)
    folds = np.asarray(folds)
    if folds.shape != p.shape:
        raise ValueError(f"folds must have shape {p.shape}, got {folds.shape}")
    fold_ids = np.unique(folds)
    if fold_ids.size < 2:
        raise ValueError("out-of-fold recalibration needs at least two folds")
    out = np.empty_like(p)
    for k in fold_ids:
        held_out = folds == k
        out[held_out] = fit_recalibration(p[~held_out], y[~held_out], method)(p[held_out])
    return out


def recalibration_summary(p, y, folds) -> list[dict]:
    """ECE, Brier and ROC-AUC of the pooled out-of-fold predictions, per method.

    One dict per method in ("none", "isotonic", "platt"), "none" being the raw
    p; Brier = ``mean((p - y)^2)`` (metrics.brier); ROC-AUC (metrics.roc_auc) is nan, with an
    ``UndefinedMetricWarning``, when the labels hold one class only.
    """
    p, y = _validated(p, y)
    rows = []
    for method in ("none", *RECALIBRATION_METHODS):
        q = p if method == "none" else recalibrate_oof(p, y, folds, method)
        rows.append({"method": method, "ece": ece(y, q), "brier": brier(y, q), "roc_auc": roc_auc(y, q)})
    return rows
