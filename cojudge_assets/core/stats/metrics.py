"""Judge metrics as the seed study defines them, in scikit-learn's manner and vectorized over bootstrap resamples.

Every metric takes ``(y_true, y_score, *, sample_weight=None)``: ``y_true`` the
labels (n,), 1 when the contest's verdict is AC and 0 otherwise; ``y_score``
the judge's scores (n,) (``y_proba`` where the metric needs probabilities in
[0, 1], ``y_pred`` for decisions in {0, 1}, as scikit-learn names them).
``sample_weight`` is None, a vector (n,) or a bootstrap matrix (B, n) whose row
b says how often each attempt was drawn in resample b (core/stats/bootstrap.py). With
None or a vector the metric returns a float; with a matrix a (B,) array whose
entry b is the metric on the data with attempt i repeated ``sample_weight[b, i]``
times. One resample is therefore a weight row, never a copied table, and B
resamples cost a few matrix products.

Inputs are checked by one helper: a ValueError names the argument when lengths
differ, ``y_true`` (or ``y_pred``) holds anything but 0 and 1, a score is NaN or
infinite, a probability lies outside [0, 1], or ``sample_weight`` has the wrong
shape or a negative or non-finite entry.

Undefined cases: when the data cannot define a metric (ROC-AUC with one class
only, average precision without an accepted attempt, any metric on no
attempts), the metric emits scikit-learn's ``UndefinedMetricWarning`` and
returns NaN. Under a bootstrap matrix, a resample that happens to draw one class
only is NaN without a warning (an expected event of resampling; the percentile
interval leaves such replicates out, core/stats/bootstrap.py).

Thresholds are searched on the grid 0.01..0.99 (THRESHOLD_GRID, the grid the
scale-validity table counts decision rules on). Among grid points with the
largest MCC, the middle one is taken, so that on a coarse scale the threshold
sits between two emitted values instead of on the edge of one.

Grouped cross-validation: folds are formed on the trajectory key
(participant, problem) with scikit-learn's GroupKFold (shuffled, seeded), so no
trajectory is split; each held-out fold's threshold is selected on the other
folds only and applied unchanged (MCCoof pools those decisions, seed study IV-C).
"""

from __future__ import annotations

import warnings
from typing import TYPE_CHECKING, Any

import numpy as np

from cojudge_assets.core.constants import SEED

if TYPE_CHECKING:
    from sklearn.exceptions import UndefinedMetricWarning

__all__ = [
    "LOGLOSS_CLIP",
    "THRESHOLD_GRID",
    "UndefinedMetricWarning",
    "average_precision",
    "brier",
    "grid_mcc",
    "grouped_folds",
    "in_fold_mcc",
    "log_loss",
    "mcc",
    "oof_decisions",
    "roc_auc",
    "select_threshold",
    "weighted_mean",
]

THRESHOLD_GRID = np.round(np.arange(1, 100) / 100, 2)
LOGLOSS_CLIP = 1e-6


# -- validation ------------------------------------------------------------------------------------------


def _check_inputs(y_true, y_score, sample_weight=None, *, score_name: str = "y_score", kind: str = "score"):
    """The inputs as (labels int64 (n,), scores float64 (n,), weights float64 (B, n), weights' ndim), or a ValueError.

    ``kind``: ``"score"`` (any finite number), ``"proba"`` (in [0, 1]) or
    ``"label"`` (0 or 1). The weights are (1, n) ones when ``sample_weight`` is
    None, and their ndim is then 0.
    """
    labels = np.asarray(y_true)
    scores = np.asarray(y_score)
    if labels.ndim != 1:
        raise ValueError(f"y_true must be 1-D, got shape {labels.shape}")
    if scores.ndim != 1:
        raise ValueError(f"{score_name} must be 1-D, got shape {scores.shape}")
    if labels.shape != scores.shape:
        raise ValueError(f"y_true and {score_name} differ in length: {labels.size} against {scores.size}")
    labels = _binary(labels, "y_true")
    if kind == "label":
        scores = _binary(scores, score_name).astype(np.float64)
    else:
        try:
            scores = scores.astype(np.float64)
        except (TypeError, ValueError):
            raise ValueError(f"{score_name} must be numeric, got dtype {scores.dtype}") from None
        if not np.isfinite(scores).all():
            bad = scores[~np.isfinite(scores)][0]
            raise ValueError(
                f"{score_name} must be finite; found {bad} at index {int(np.flatnonzero(~np.isfinite(scores))[0])}"
            )
        if kind == "proba" and scores.size and (scores.min() < 0.0 or scores.max() > 1.0):
            bad = scores[(scores < 0.0) | (scores > 1.0)][0]
            raise ValueError(f"{score_name} must hold probabilities in [0, 1]; found {bad}")
    weights, ndim = _check_weights(sample_weight, labels.size)
    return labels, scores, weights, ndim


def _binary(values: np.ndarray, name: str) -> np.ndarray:
    """``values`` as int64 0/1, or a ValueError naming ``name`` and an offending value."""
    if values.dtype == bool:
        return values.astype(np.int64)
    if values.dtype.kind in "iuf":
        is_binary = (values == 0) | (values == 1)
    else:
        is_binary = np.zeros(values.shape, dtype=bool)
    if not is_binary.all():
        found = values[~is_binary][0]
        raise ValueError(
            f"{name} must hold binary labels 0 and 1 (1 = accepted); found "
            f"{found.item() if isinstance(found, np.generic) else found!r}"
        )
    return values.astype(np.int64, copy=False)


def _check_weights(sample_weight, n: int) -> tuple[np.ndarray, int]:
    if sample_weight is None:
        return np.ones((1, n)), 0
    weights = np.asarray(sample_weight, dtype=np.float64)
    if weights.ndim not in (1, 2) or weights.shape[-1] != n:
        raise ValueError(f"sample_weight must have shape ({n},) or (B, {n}), got {weights.shape}")
    # two reductions, no (B, n) temporary: a finite sum means every entry is finite
    if weights.size and not (np.isfinite(weights.sum()) and weights.min() >= 0):
        raise ValueError("sample_weight must be finite and nonnegative")
    return (weights[None, :], 1) if weights.ndim == 1 else (weights, 2)


def __getattr__(name: str) -> Any:
    # scikit-learn's UndefinedMetricWarning, re-exported so that one filter silences both; scikit-learn is imported
    # when the name is first read (a metric that warns, a filter), not when the Definitions load
    if name == "UndefinedMetricWarning":
        from sklearn.exceptions import UndefinedMetricWarning

        return UndefinedMetricWarning
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _warn_undefined(message: str, stacklevel: int) -> None:
    from sklearn.exceptions import UndefinedMetricWarning

    warnings.warn(message, UndefinedMetricWarning, stacklevel=stacklevel + 1)


def _finish(values: np.ndarray, ndim: int, *, undefined: bool, metric: str, reason: str, stacklevel: int = 3):
    """A float (no weights or a weight vector) or the (B,) array; warn when the data leave the metric undefined.

    ``undefined`` says the data as given cannot define the metric; a weight
    vector can also leave it undefined (all weight on one class), which its NaN
    shows. A NaN row of a bootstrap matrix is not warned about.
    """
    if undefined or (ndim < 2 and np.isnan(values[0])):
        # stacklevel: the warning points at the caller of the public metric
        _warn_undefined(f"{metric} is undefined: {reason}; returning NaN", stacklevel=stacklevel)
    return float(values[0]) if ndim < 2 else values


def _class_reason(labels: np.ndarray) -> str:
    positives = int(labels.sum())
    return (
        f"y_true holds {labels.size} label(s), {positives} of class 1 and {labels.size - positives} of class 0"
        if labels.size
        else "no attempts"
    )


# -- ranking ---------------------------------------------------------------------------------------------


def _value_label_sums(scores: np.ndarray, labels: np.ndarray, weights: np.ndarray, *, descending: bool):
    """Summed weights of accepted and of other attempts per distinct score, in score order: two (B, K) tables.

    One sparse product (weights x indicator of (value, label)) gives both at once,
    without the (B, n) temporaries a multiply-gather-reduce would allocate: the
    cost stays linear in the attempts at any size.
    """
    if len(scores) == 0:
        return np.zeros((weights.shape[0], 1)), np.zeros((weights.shape[0], 1))
    values, group = np.unique(scores, return_inverse=True)
    if descending:
        group = len(values) - 1 - group
    from scipy import sparse  # scipy.sparse costs a second at start-up; loaded by the first metric instead

    indicator = sparse.csr_matrix(
        (np.ones(len(scores)), (np.arange(len(scores)), 2 * group + labels)), shape=(len(scores), 2 * len(values))
    )
    sums = np.asarray(weights @ indicator)
    return sums[:, 1::2], sums[:, 0::2]


def roc_auc(y_true, y_score, *, sample_weight=None):
    """Area under the ROC curve: the probability that an accepted attempt scores above a non-accepted one.

    ``AUC = sum_{i: y_i=1} sum_{j: y_j=0} w_i w_j ([s_i > s_j] + 0.5 [s_i = s_j])
    / (sum_{i: y_i=1} w_i * sum_{j: y_j=0} w_j)``, ties counting one half; equal
    to scikit-learn's ``roc_auc_score``. Computed from the weight per distinct
    score, so its cost is linear in the attempts.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_score : array-like of shape (n,)
        Any finite scores; only their order matters.
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) when ``y_true`` holds one class only.

    Examples
    --------
    Accepted scores 0.8, 0.4; rejected 0.4, 0.1: pairs 1 + 1 + 0.5 + 1 of 4.

    >>> roc_auc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1])
    0.875
    >>> roc_auc([1, 1, 0, 0], [0.8, 0.4, 0.4, 0.1], sample_weight=[[2, 0, 1, 1], [1, 1, 1, 1]]).tolist()
    [1.0, 0.875]
    """
    labels, scores, weights, ndim = _check_inputs(y_true, y_score, sample_weight)
    pos, neg = _value_label_sums(scores, labels, weights, descending=False)
    below = np.cumsum(neg, axis=1) - neg
    total = pos.sum(1) * neg.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (pos * (below + 0.5 * neg)).sum(1) / total
    positives = int(labels.sum())
    return _finish(
        np.where(total > 0, auc, np.nan),
        ndim,
        undefined=positives in (0, labels.size),
        metric="ROC-AUC",
        reason=_class_reason(labels),
    )


def average_precision(y_true, y_score, *, sample_weight=None):
    """Average precision (PR-AUC): precision averaged over the accepted attempts, from the highest score down.

    ``AP = sum_k (R_k - R_{k-1}) P_k`` over the distinct scores from the highest,
    ``P_k`` and ``R_k`` the (weighted) precision and recall of the decision
    ``[s >= s_k]``; equal to scikit-learn's ``average_precision_score``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_score : array-like of shape (n,)
        Any finite scores; only their order matters.
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) when no attempt is accepted.

    Examples
    --------
    Ranked 0.9 (accepted), 0.6 (not), 0.3 (accepted): (1/2) * 1 + (1/2) * (2/3).

    >>> round(average_precision([1, 0, 1], [0.9, 0.6, 0.3]), 12)
    0.833333333333
    """
    labels, scores, weights, ndim = _check_inputs(y_true, y_score, sample_weight)
    pos, neg = _value_label_sums(scores, labels, weights, descending=True)
    tp, fp = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    total = pos.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        ap = (pos * precision).sum(1) / total
    return _finish(
        np.where(total > 0, ap, np.nan),
        ndim,
        undefined=int(labels.sum()) == 0,
        metric="average precision",
        reason=_class_reason(labels),
    )


# -- probabilities ---------------------------------------------------------------------------------------


def weighted_mean(values, *, sample_weight=None):
    """Weighted mean ``sum_i w_i v_i / sum_i w_i`` of finite values, per weight row.

    Parameters
    ----------
    values : array-like of shape (n,)
        Finite numbers (a share when they are 0/1).
    sample_weight : None, array-like of shape (n,) or (B, n)
        Weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) on no values.

    Examples
    --------
    >>> weighted_mean([0.2, 0.4, 0.9])
    0.5
    >>> weighted_mean([0.2, 0.4, 0.9], sample_weight=[[3, 0, 0], [0, 1, 1]]).round(12).tolist()
    [0.2, 0.65]
    """
    array = np.asarray(values)
    if array.ndim != 1:
        raise ValueError(f"values must be 1-D, got shape {array.shape}")
    _, scores, weights, ndim = _check_inputs(
        np.zeros(array.size, dtype=np.int64), array, sample_weight, score_name="values"
    )
    return _weighted_mean(scores, weights, ndim, metric="the weighted mean")


def _weighted_mean(values: np.ndarray, weights: np.ndarray, ndim: int, *, metric: str):
    total = weights.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        means = np.where(total > 0, weights @ values / total, np.nan)
    return _finish(
        means,
        ndim,
        undefined=values.size == 0,
        metric=metric,
        reason="no attempts" if values.size == 0 else "the weights sum to 0",
        stacklevel=4,
    )


def log_loss(y_true, y_proba, *, sample_weight=None):
    """Mean negative log-likelihood of the labels under the predicted acceptance probabilities.

    ``LogLoss = -sum_i w_i (y_i log q_i + (1 - y_i) log(1 - q_i)) / sum_i w_i``
    with ``q = clip(p, LOGLOSS_CLIP, 1 - LOGLOSS_CLIP)`` = [1e-6, 1 - 1e-6]: a
    judge answering exactly 0 or 1 would otherwise score infinity, and the clip
    caps one such confident miss at 13.8 nats. Equal to scikit-learn's
    ``log_loss`` on the clipped probabilities.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_proba : array-like of shape (n,)
        Predicted probabilities of acceptance, in [0, 1].
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) on no attempts.

    Examples
    --------
    >>> round(log_loss([1, 0], [0.8, 0.4]), 6)  # -(log 0.8 + log 0.6) / 2
    0.366985
    >>> round(log_loss([1], [0.0]), 4)  # a confident miss, capped by the clip
    13.8155
    """
    labels, proba, weights, ndim = _check_inputs(y_true, y_proba, sample_weight, score_name="y_proba", kind="proba")
    q = np.clip(proba, LOGLOSS_CLIP, 1 - LOGLOSS_CLIP)
    return _weighted_mean(-(labels * np.log(q) + (1 - labels) * np.log(1 - q)), weights, ndim, metric="log loss")


def brier(y_true, y_proba, *, sample_weight=None):
    """Brier score: mean squared difference between the predicted probability and the label.

    ``Brier = sum_i w_i (p_i - y_i)^2 / sum_i w_i``; equal to scikit-learn's ``brier_score_loss``.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_proba : array-like of shape (n,)
        Predicted probabilities of acceptance, in [0, 1].
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) on no attempts.

    Examples
    --------
    >>> round(brier([1, 0, 1], [0.9, 0.2, 0.5]), 12)  # (0.01 + 0.04 + 0.25) / 3
    0.1
    """
    labels, proba, weights, ndim = _check_inputs(y_true, y_proba, sample_weight, score_name="y_proba", kind="proba")
    return _weighted_mean((proba - labels) ** 2, weights, ndim, metric="the Brier score")


# -- decisions -------------------------------------------------------------------------------------------


def _mcc(tp, fp, tn, fn):
    tp, fp, tn, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, tn, fn))
    denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (tp * tn - fp * fn) / denominator
    return np.where(denominator > 0, value, 0.0)


def mcc(y_true, y_pred, *, sample_weight=None):
    """Matthews correlation coefficient of binary decisions against the labels.

    ``MCC = (TP TN - FP FN) / sqrt((TP + FP)(TP + FN)(TN + FP)(TN + FN))`` with
    weighted counts; 0 when a marginal is empty (scikit-learn's convention for
    ``matthews_corrcoef``, which it equals).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_pred : array-like of shape (n,)
        Decisions, 1 = judged accepted.
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    float in [-1, 1], or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) on no attempts.

    Examples
    --------
    >>> round(mcc([1, 1, 0, 0], [1, 0, 0, 0]), 6)  # TP 1, FN 1, TN 2: 2 / sqrt(1 * 2 * 3 * 2)
    0.57735
    """
    labels, decisions, weights, ndim = _check_inputs(y_true, y_pred, sample_weight, score_name="y_pred", kind="label")
    tp = weights @ (decisions * labels)
    fp = weights @ (decisions * (1 - labels))
    fn = weights @ ((1 - decisions) * labels)
    tn = weights @ ((1 - decisions) * (1 - labels))
    values = np.where(weights.sum(1) > 0, _mcc(tp, fp, tn, fn), np.nan)
    return _finish(values, ndim, undefined=labels.size == 0, metric="MCC", reason="no attempts")


def _grid_mcc(labels: np.ndarray, scores: np.ndarray, weights: np.ndarray) -> np.ndarray:
    """(B, 99) MCC of ``[s >= t]`` per grid threshold t, from the cumulative weights above each threshold."""
    pos, neg = _value_label_sums(scores, labels, weights, descending=True)
    zero = np.zeros((pos.shape[0], 1))
    cum_pos, cum_neg = np.hstack([zero, np.cumsum(pos, axis=1)]), np.hstack([zero, np.cumsum(neg, axis=1)])
    values = np.unique(scores)[::-1] if len(scores) else np.array([np.inf])  # descending, as the groups
    above = np.searchsorted(-values, -THRESHOLD_GRID, side="right")  # distinct values >= t
    tp, fp = cum_pos[:, above], cum_neg[:, above]
    fn, tn = cum_pos[:, -1:] - tp, cum_neg[:, -1:] - fp
    out = _mcc(tp, fp, tn, fn)
    return np.where(weights.sum(1, keepdims=True) > 0, out, np.nan)


def grid_mcc(y_true, y_score, *, sample_weight=None) -> np.ndarray:
    """MCC of the decisions ``[s >= t]`` for every threshold t of THRESHOLD_GRID (0.01..0.99).

    Only the distinct scores matter: the weights are summed per distinct score
    once, and each threshold reads the cumulative sums above it (cost
    O(B x distinct scores)).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_score : array-like of shape (n,)
        Predicted probabilities of acceptance, in [0, 1].
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample.

    Returns
    -------
    ndarray of shape (99,), or (B, 99) for a (B, n) ``sample_weight``.
        All NaN (with an ``UndefinedMetricWarning``) on no attempts.

    Examples
    --------
    >>> scores = grid_mcc([1, 1, 0, 0], [0.9, 0.6, 0.6, 0.2])
    >>> [round(float(scores[THRESHOLD_GRID.tolist().index(t)]), 6) for t in (0.5, 0.7)]
    [0.57735, 0.57735]
    """
    labels, scores, weights, ndim = _check_inputs(y_true, y_score, sample_weight, kind="proba")
    out = _grid_mcc(labels, scores, weights)
    if labels.size == 0:
        _warn_undefined("MCC is undefined: no attempts; returning NaN", stacklevel=2)
    return out[0] if ndim < 2 else out


def in_fold_mcc(y_true, y_score, *, sample_weight=None):
    """MCC with the threshold selected on the same (resampled) data: ``max_t MCC([s >= t])`` over THRESHOLD_GRID.

    Optimistic by construction; MCCoof (:func:`oof_decisions`, :func:`mcc`) is the honest figure.

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_score : array-like of shape (n,)
        Predicted probabilities of acceptance, in [0, 1].
    sample_weight : None, array-like of shape (n,) or (B, n)
        Attempt weights, or one row of bootstrap counts per resample (the
        threshold is re-selected in every resample).

    Returns
    -------
    float, or ndarray of shape (B,) for a (B, n) ``sample_weight``.
        NaN (with an ``UndefinedMetricWarning``) on no attempts.

    Examples
    --------
    >>> in_fold_mcc([1, 1, 0, 0], [0.9, 0.7, 0.6, 0.2])  # t in (0.6, 0.7] separates the classes
    1.0
    """
    labels, scores, weights, ndim = _check_inputs(y_true, y_score, sample_weight, kind="proba")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # all-NaN rows (no weight) stay NaN
        best = (
            np.nanmax(_grid_mcc(labels, scores, weights), axis=1)
            if weights.shape[1]
            else np.full(weights.shape[0], np.nan)
        )
    return _finish(best, ndim, undefined=labels.size == 0, metric="MCC", reason="no attempts")


def select_threshold(y_true, y_score) -> float:
    """The grid threshold maximizing MCC, the middle one among ties.

    ``argmax_t MCC([s >= t])`` over THRESHOLD_GRID; among the grid points within
    1e-12 of the best MCC the middle one is taken, so on a coarse scale the
    threshold sits between two emitted values. A ValueError on no attempts.

    Examples
    --------
    The ten grid points 0.61..0.70 all separate the classes; the middle one is
    the sixth (index 10 // 2).

    >>> select_threshold([1, 1, 0, 0], [0.9, 0.7, 0.6, 0.2])
    0.66
    """
    labels, scores, weights, _ = _check_inputs(y_true, y_score, kind="proba")
    if labels.size == 0:
        raise ValueError("y_true is empty: there is no threshold to select")
    scores = _grid_mcc(labels, scores, weights)[0]
    best = np.flatnonzero(scores >= scores.max() - 1e-12)
    return float(THRESHOLD_GRID[best[len(best) // 2]])


# -- folds -----------------------------------------------------------------------------------------------


def grouped_folds(groups, *, n_splits: int = 10, seed: int = SEED) -> np.ndarray:
    """Fold id (0..K-1) per attempt, no group split across folds (scikit-learn's shuffled GroupKFold).

    K is ``n_splits`` capped at the number of groups (and at least 2).

    Examples
    --------
    >>> folds = grouped_folds([0, 0, 1, 1, 2, 2], n_splits=3, seed=0)
    >>> sorted(set(folds.tolist())), bool((folds[::2] == folds[1::2]).all())
    ([0, 1, 2], True)
    """
    groups = np.asarray(groups)
    if groups.ndim != 1:
        raise ValueError(f"groups must be 1-D, got shape {groups.shape}")
    n_groups = len(np.unique(groups))
    if n_groups < 2:
        raise ValueError(f"groups must hold at least 2 distinct groups to form folds, got {n_groups}")
    k = max(2, min(n_splits, n_groups))
    folds = np.empty(len(groups), dtype=np.int64)
    from sklearn.model_selection import GroupKFold

    splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    for fold, (_, test) in enumerate(splitter.split(np.zeros(len(groups)), groups=groups)):
        folds[test] = fold
    return folds


def oof_decisions(y_true, y_score, *, folds) -> tuple[np.ndarray, dict[int, float]]:
    """Out-of-fold decisions, each fold thresholded on the other folds only; and each fold's threshold.

    ``yhat_i = [s_i >= t_k]`` for i in fold k, ``t_k`` = :func:`select_threshold`
    on the attempts outside fold k (seed study IV-C).

    Parameters
    ----------
    y_true : array-like of shape (n,)
        Labels, 1 = accepted.
    y_score : array-like of shape (n,)
        Predicted probabilities of acceptance, in [0, 1].
    folds : array-like of shape (n,)
        Fold id per attempt (:func:`grouped_folds`), at least two distinct.

    Returns
    -------
    (ndarray of shape (n,) of 0/1 decisions, {fold id: threshold})

    Examples
    --------
    >>> yhat, thresholds = oof_decisions([1, 0, 1, 0], [0.9, 0.1, 0.8, 0.3], folds=[0, 0, 1, 1])
    >>> yhat.tolist(), thresholds
    ([1, 0, 1, 0], {0: 0.56, 1: 0.51})
    """
    labels, scores, _, _ = _check_inputs(y_true, y_score, kind="proba")
    folds = np.asarray(folds)
    if folds.shape != labels.shape:
        raise ValueError(f"folds must have shape {labels.shape} like y_true, got {folds.shape}")
    if labels.size and len(np.unique(folds)) < 2:
        raise ValueError("folds must hold at least two distinct folds")
    yhat = np.zeros(len(scores), dtype=np.int64)
    thresholds = {}
    for fold in np.unique(folds):
        held = folds == fold
        thresholds[int(fold)] = select_threshold(labels[~held], scores[~held])
        yhat[held] = scores[held] >= thresholds[int(fold)]
    return yhat, thresholds
