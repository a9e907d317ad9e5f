"""Judge metrics as the seed study defines them, vectorized over bootstrap resamples.

Labels are y = 1 when the verdict is AC. Every statistic takes the predictions
``p`` (n,), the labels ``y`` (n,) and an optional weight matrix ``w`` (B, n):
row b says how often each attempt was drawn in resample b. Without ``w`` it
returns a float on the data as given; with ``w`` a (B,) array whose entry b is
the statistic on the data with attempt i repeated ``w[b, i]`` times. One
resample is therefore a weight row, never a copied table, and B resamples cost
a few matrix products.

* ROC-AUC: the probability that an accepted attempt scores above a
  non-accepted one, ties counting one half (equals scikit-learn's
  ``roc_auc_score``).
* PR-AUC: average precision, sum over distinct scores, from the highest, of
  (recall step) x precision (equals ``average_precision_score``).
* LogLoss: mean negative log-likelihood with p clipped to
  [LOGLOSS_CLIP, 1 - LOGLOSS_CLIP] = [1e-6, 1 - 1e-6] (a judge answering
  exactly 0 or 1 would otherwise score infinity; the clip caps one such
  confident miss at 13.8 nats).
* Brier: mean squared error of p against y.
* MCC: Matthews correlation of the decisions yhat = [p >= t]; 0 when a
  marginal is empty (scikit-learn's convention).

Thresholds are searched on the grid 0.01..0.99 (THRESHOLD_GRID, the grid the
scale-validity table counts decision rules on). Among grid points with the
largest MCC, the middle one is taken, so that on a coarse scale the threshold
sits between two emitted values instead of on the edge of one.

Grouped cross-validation: folds are formed on the trajectory key
(participant, problem) with scikit-learn's GroupKFold (shuffled, seeded), so no
trajectory is split; each held-out fold's threshold is selected on the other
folds only and applied unchanged (MCCoof pools those decisions).

Bootstrap: clusters (trajectories, or problems for the robustness check) are
drawn with replacement, as many as there are, and an attempt's weight is the
number of times its cluster was drawn. Resamples are generated in fixed blocks
of BLOCK rows from one seeded generator, so the same seed gives the same
resamples whatever the data size, and memory stays bounded.
"""

from __future__ import annotations

from collections.abc import Iterator

import numpy as np
from scipy import sparse
from sklearn.model_selection import GroupKFold

THRESHOLD_GRID = np.round(np.arange(1, 100) / 100, 2)
LOGLOSS_CLIP = 1e-6
BLOCK = 250


# -- resampling ------------------------------------------------------------------------------------------

def cluster_codes(*keys: np.ndarray) -> np.ndarray:
    """Integer cluster ids (0..G-1) for the rows of one or more key columns, in sorted key order."""
    joined = np.array(["\x1f".join(map(str, parts)) for parts in zip(*keys)], dtype=object)
    _, codes = np.unique(joined, return_inverse=True)
    return codes.astype(np.int64)


def cluster_weights(clusters: np.ndarray, n_resamples: int, seed: int) -> Iterator[np.ndarray]:
    """Blocks of bootstrap weight rows: each row draws G clusters with replacement out of G."""
    n_clusters = int(clusters.max()) + 1 if len(clusters) else 0
    rng = np.random.default_rng(seed)
    probabilities = np.full(n_clusters, 1.0 / max(n_clusters, 1))
    for start in range(0, n_resamples, BLOCK):
        rows = min(BLOCK, n_resamples - start)
        counts = rng.multinomial(n_clusters, probabilities, size=rows)
        yield counts[:, clusters].astype(np.float64)


def interval(samples: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """Percentile interval of bootstrap replicates (nan replicates ignored)."""
    finite = samples[np.isfinite(samples)]
    if len(finite) == 0:
        return float("nan"), float("nan")
    tail = (1 - level) / 2 * 100
    lo, hi = np.percentile(finite, [tail, 100 - tail])
    return float(lo), float(hi)


# -- folds and thresholds --------------------------------------------------------------------------------

def grouped_folds(groups: np.ndarray, k: int = 10, seed: int = 0) -> np.ndarray:
    """Fold id (0..K-1) per attempt; K is capped at the number of groups."""
    n_groups = len(np.unique(groups))
    k = max(2, min(k, n_groups))
    folds = np.empty(len(groups), dtype=np.int64)
    splitter = GroupKFold(n_splits=k, shuffle=True, random_state=seed)
    for fold, (_, test) in enumerate(splitter.split(np.zeros(len(groups)), groups=groups)):
        folds[test] = fold
    return folds


def _mcc(tp, fp, tn, fn):
    tp, fp, tn, fn = (np.asarray(v, dtype=np.float64) for v in (tp, fp, tn, fn))
    denominator = np.sqrt((tp + fp) * (tp + fn) * (tn + fp) * (tn + fn))
    with np.errstate(invalid="ignore", divide="ignore"):
        value = (tp * tn - fp * fn) / denominator
    return np.where(denominator > 0, value, 0.0)


def grid_mcc(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None) -> np.ndarray:
    """MCC of yhat = [p >= t] for every t of THRESHOLD_GRID: (99,) or (B, 99) with weights.

    Only the distinct values of p matter: the weights are summed per distinct value once,
    and each grid threshold reads the cumulative sums above it (O(B x distinct values)).
    """
    pos, neg = _value_label_sums(p, y, w, descending=True)
    zero = np.zeros((pos.shape[0], 1))
    cum_pos, cum_neg = np.hstack([zero, np.cumsum(pos, axis=1)]), np.hstack([zero, np.cumsum(neg, axis=1)])
    values = np.unique(p)[::-1] if len(p) else np.array([np.inf])  # descending, as the groups
    above = np.searchsorted(-values, -THRESHOLD_GRID, side="right")  # distinct values >= t
    tp, fp = cum_pos[:, above], cum_neg[:, above]
    fn, tn = cum_pos[:, -1:] - tp, cum_neg[:, -1:] - fp
    out = _mcc(tp, fp, tn, fn)
    return out[0] if w is None else out


def select_threshold(p: np.ndarray, y: np.ndarray) -> float:
    """The grid threshold maximizing MCC (the middle one among ties)."""
    scores = grid_mcc(p, y)
    best = np.flatnonzero(scores >= scores.max() - 1e-12)
    return float(THRESHOLD_GRID[best[len(best) // 2]])


def oof_decisions(p: np.ndarray, y: np.ndarray, folds: np.ndarray) -> tuple[np.ndarray, dict[int, float]]:
    """Out-of-fold decisions, each fold thresholded on the other folds only; and the thresholds."""
    yhat = np.zeros(len(p), dtype=np.int64)
    thresholds = {}
    for fold in np.unique(folds):
        held = folds == fold
        thresholds[int(fold)] = select_threshold(p[~held], y[~held])
        yhat[held] = p[held] >= thresholds[int(fold)]
    return yhat, thresholds


# -- metrics ---------------------------------------------------------------------------------------------

def _weights(w: np.ndarray | None, n: int) -> np.ndarray:
    return np.ones((1, n)) if w is None else w


def _finish(values: np.ndarray, w: np.ndarray | None):
    return float(values[0]) if w is None else values


def _value_label_sums(p: np.ndarray, y: np.ndarray, w: np.ndarray | None, *, descending: bool):
    """Summed weights of accepted and of other attempts per distinct value of p, in value order.

    One sparse product (weights x indicator of (value, label)) gives both (B, K) tables at once,
    without the (B, n) temporaries a multiply-gather-reduce would allocate: the cost stays linear
    in the attempts at any size.
    """
    weights = _weights(w, len(p))
    if len(p) == 0:
        return np.zeros((weights.shape[0], 1)), np.zeros((weights.shape[0], 1))
    values, group = np.unique(p, return_inverse=True)
    if descending:
        group = len(values) - 1 - group
    indicator = sparse.csr_matrix((np.ones(len(p)), (np.arange(len(p)), 2 * group + y.astype(np.int64))),
                                  shape=(len(p), 2 * len(values)))
    sums = np.asarray(weights @ indicator)
    return sums[:, 1::2], sums[:, 0::2]


def roc_auc(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    pos, neg = _value_label_sums(p, y, w, descending=False)
    below = np.cumsum(neg, axis=1) - neg
    total = pos.sum(1) * neg.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        auc = (pos * (below + 0.5 * neg)).sum(1) / total
    return _finish(np.where(total > 0, auc, np.nan), w)


def average_precision(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    pos, neg = _value_label_sums(p, y, w, descending=True)
    tp, fp = np.cumsum(pos, axis=1), np.cumsum(neg, axis=1)
    total = pos.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        precision = np.where(tp + fp > 0, tp / (tp + fp), 0.0)
        ap = (pos * precision).sum(1) / total
    return _finish(np.where(total > 0, ap, np.nan), w)


def weighted_mean(values: np.ndarray, w: np.ndarray | None):
    weights = _weights(w, len(values))
    total = weights.sum(1)
    with np.errstate(invalid="ignore", divide="ignore"):
        return _finish(np.where(total > 0, weights @ values / total, np.nan), w)


def log_loss(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    q = np.clip(p, LOGLOSS_CLIP, 1 - LOGLOSS_CLIP)
    return weighted_mean(-(y * np.log(q) + (1 - y) * np.log(1 - q)), w)


def brier(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    return weighted_mean((p - y) ** 2, w)


def mcc(yhat: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    weights = _weights(w, len(y))
    tp = weights @ (yhat * y)
    fp = weights @ (yhat * (1 - y))
    fn = weights @ ((1 - yhat) * y)
    tn = weights @ ((1 - yhat) * (1 - y))
    return _finish(_mcc(tp, fp, tn, fn), w)


def in_fold_mcc(p: np.ndarray, y: np.ndarray, w: np.ndarray | None = None):
    """MCC with the threshold selected on the same (resampled) data: the best grid MCC."""
    return grid_mcc(p, y, w).max(axis=-1) if w is not None else float(grid_mcc(p, y).max())
