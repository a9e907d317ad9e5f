"""Design-based analytic intervals, clustered: the large-sample alternative to the cluster bootstrap.

Every metric here is a smooth functional T of the (weighted) empirical
distribution of the attempts, so ``T_hat - T ~= sum_i psi_i`` with ``psi_i``
the attempt's influence (its influence function over n: the derivative of the
weighted metric in the attempt's weight at weights 1; the tests check each
against that derivative). Attempts of one cluster (a trajectory: participant x
problem, as the bootstrap draws them) are dependent; clusters are not, so

    Var(T_hat) = G / (G - 1) * sum_c (sum_{i in c} psi_i) ** 2

(the cluster-robust sandwich; for a mean it is statsmodels' cluster-robust
standard error of an intercept-only OLS, which a test checks), and the interval
is ``T_hat +- t_{G-1, 0.975} * SE``. The influences:

* a mean (log loss, Brier, base rate, mean p): ``(v_i - mean) / n``;
* ROC-AUC: DeLong's placements, clustered (Obuchowski 1997): an accepted attempt's
  share of rejected ones below it (ties one half) minus the AUC, over n_1; a
  rejected one's share of accepted ones above it minus the AUC, over n_0;
* average precision: the influence function of ``E[y prec(s)] / E[y]`` with
  ``prec(t) = P(y = 1 | s >= t)`` (derived in :func:`average_precision_influence`);
* Kendall's tau-b of a binary label and a score: ``tau_b = (2 AUC - 1) sqrt(2 pi (1 - pi) / (1 - sum_v f_v^2))``
  exactly (pi the positives' share, f_v the share of score value v: the pairs with different labels are
  n_1 n_0, those untied on the score (n^2 - sum c_v^2) / 2), so its influence follows from the AUC's, pi's and
  the score ties' (:func:`kendall_tau_b_influence`); Pearson's r from the means of y, s, ys, s^2;
* a function of means (MCC of fixed decisions, ECE with the bins' signs fixed):
  the delta method, ``grad f(mean) . (v_i - mean) / n`` (numerical gradient);
  the in-fold MCC is the MCC at its selected threshold (the envelope theorem:
  the selection does not move to first order).

A paired difference is a difference of influences, so its variance comes from
the difference of cluster totals: :func:`cluster_totals` of each side, then
:func:`interval_from_totals`.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from cojudge_assets.core.stats import metrics as m


def cluster_totals(influence: np.ndarray, clusters: np.ndarray, n_clusters: int) -> np.ndarray:
    """Sum of the influences per cluster (length ``n_clusters``; clusters are codes 0..G-1)."""
    return np.bincount(np.asarray(clusters, dtype=np.int64), weights=influence, minlength=n_clusters)


def clustered_variance(totals: np.ndarray) -> float:
    """``G / (G - 1) * sum_c t_c^2`` over the clusters that hold an attempt (t_c != 0 or present)."""
    g = len(totals)
    if g < 2:
        return float("nan")
    return float(g / (g - 1) * np.sum(totals**2))


def interval_from_totals(value: float, totals: np.ndarray, level: float = 0.95) -> tuple[float, float]:
    """``value +- t_{G-1} * SE`` with SE from the cluster totals of the influences (nan when undefined; the point
    when every total is 0).

    >>> interval_from_totals(0.0, np.zeros(4))
    (0.0, 0.0)
    """
    from scipy import stats

    g = int(np.count_nonzero(totals))  # clusters the statistic saw (an empty cluster adds nothing)
    if np.isfinite(value) and len(totals) and not np.any(totals):
        # no attempt moves the statistic: a paired difference of two identical sides (a judge that answers the
        # same under two conditions) has variance 0, as its every bootstrap replicate is the same
        return float(value), float(value)
    if not np.isfinite(value) or g < 2:
        return float("nan"), float("nan")
    se = np.sqrt(g / (g - 1) * float(np.sum(totals**2)))
    half = float(stats.t.ppf((1 + level) / 2, g - 1)) * se
    return float(value - half), float(value + half)


def p_from_totals(value: float, totals: np.ndarray) -> float | None:
    """Two-sided p of "the statistic is 0" on the reference distribution of :func:`interval_from_totals`
    (``2 * P(T_{G-1} > |value| / SE)``), so that p < 1 - level exactly when that interval excludes 0. None (not a
    test) when undefined or when no attempt moves the statistic (SE 0, the interval [x, x]).

    >>> round(p_from_totals(0.1, np.array([0.05, -0.05, 0.02, -0.02])), 4), p_from_totals(0.1, np.zeros(3))
    (0.3381, None)
    """
    from scipy import stats

    g = int(np.count_nonzero(totals))
    if not np.isfinite(value) or g < 2 or not np.all(np.isfinite(totals)):
        return None
    se = float(np.sqrt(g / (g - 1) * np.sum(totals**2)))
    if not se > 1e-12:
        return None
    return float(2 * stats.t.sf(abs(value) / se, g - 1))


def mean_influence(values: np.ndarray) -> np.ndarray:
    values = np.asarray(values, dtype=np.float64)
    return (values - values.mean()) / len(values)


def roc_auc_influence(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """DeLong's placements as influences (see the module docstring); nan when one class is missing."""
    y = np.asarray(y).astype(bool)
    p = np.asarray(p, dtype=np.float64)
    pos, neg = np.sort(p[y]), np.sort(p[~y])
    n1, n0 = len(pos), len(neg)
    if n1 == 0 or n0 == 0:
        return np.full(len(p), np.nan)
    neg_below = np.searchsorted(neg, p, side="left")
    neg_tied = np.searchsorted(neg, p, side="right") - neg_below
    pos_above = n1 - np.searchsorted(pos, p, side="right")
    pos_tied = n1 - np.searchsorted(pos, p, side="left") - pos_above
    v10 = (neg_below + 0.5 * neg_tied) / n0  # an accepted attempt's placement among the rejected
    v01 = (pos_above + 0.5 * pos_tied) / n1  # a rejected attempt's among the accepted
    auc = float(v10[y].mean())
    return np.where(y, (v10 - auc) / n1, (v01 - auc) / n0)


def kendall_tau_b_influence(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Kendall's tau-b of a binary ``y`` and a score ``s`` (module docstring): with ``g = 2 pi (1 - pi)`` and
    ``h = 1 - sum_v f_v^2``, ``IF(tau) = 2 sqrt(g / h) IF(AUC) + (2 AUC - 1) / 2 sqrt(g / h) (IF(g) / g - IF(h) / h)``,
    ``IF(g) = 2 (1 - 2 pi) (y_i - pi) / n``, ``IF(h) = -2 (f_{s_i} - sum_v f_v^2) / n``. nan when undefined (one
    label, or one score value)."""
    y = np.asarray(y).astype(bool)
    s = np.asarray(s, dtype=np.float64)
    n = len(s)
    _, code, count = np.unique(s, return_inverse=True, return_counts=True)
    share = count / n if n else count.astype(np.float64)
    ties = float(np.sum(share**2))
    pi = float(y.mean()) if n else float("nan")
    g, h = 2 * pi * (1 - pi), 1 - ties
    if not n or g <= 0 or h <= 0:
        return np.full(n, np.nan)
    auc_influence = roc_auc_influence(y, s)
    auc = float(m.roc_auc(y.astype(np.int64), s))
    scale = np.sqrt(g / h)
    if_g = 2 * (1 - 2 * pi) * (y - pi) / n
    if_h = -2 * (share[code] - ties) / n
    return 2 * scale * auc_influence + (2 * auc - 1) / 2 * scale * (if_g / g - if_h / h)


def pearson_influence(y: np.ndarray, s: np.ndarray) -> np.ndarray:
    """Pearson's r as a function of the means of y, s, ys, s^2 and y^2 (delta method; s centred first)."""
    y = np.asarray(y, dtype=np.float64)
    s = np.asarray(s, dtype=np.float64)
    s = s - s.mean() if len(s) else s

    def r(mean: np.ndarray) -> float:
        my, ms, mys, mss, myy = mean
        return float((mys - my * ms) / np.sqrt((myy - my * my) * (mss - ms * ms)))

    if len(s) < 2 or np.ptp(y) == 0 or np.ptp(s) == 0:
        return np.full(len(s), np.nan)
    return delta_influence(np.column_stack([y, s, y * s, s * s, y * y]), r)


def average_precision_influence(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """Influences of average precision ``AP = N / pi``, ``N = E[y h(s)]``, ``h(t) = A(t) / B(t)``,
    ``A(t) = P(y = 1, s >= t)``, ``B(t) = P(s >= t)``, ``pi = P(y = 1)``.

    Differentiating N at a point (y0, s0) gives
    ``y0 h(s0) - N + y0 C1(s0) - C2(s0)`` with ``C1(s0) = E[y 1(s <= s0) / B(s)]`` and
    ``C2(s0) = E[y h(s) 1(s <= s0) / B(s)]``; then ``IF = (IF_N - AP (y0 - pi)) / pi``.
    Ties are handled as the metric does (a tie counts as ``s >= t``).
    """
    y = np.asarray(y, dtype=np.float64)
    p = np.asarray(p, dtype=np.float64)
    n = len(p)
    if n == 0 or y.sum() == 0:
        return np.full(n, np.nan)
    values, inverse = np.unique(p, return_inverse=True)  # ascending
    count = np.bincount(inverse, minlength=len(values)) / n
    positive = np.bincount(inverse, weights=y, minlength=len(values)) / n
    b = np.cumsum(count[::-1])[::-1]  # P(s >= v)
    a = np.cumsum(positive[::-1])[::-1]  # P(y = 1, s >= v)
    h = a / b
    pi = float(y.mean())
    numerator = float(np.sum(positive * h))
    ap = numerator / pi
    c1 = np.cumsum(positive / b)  # over v_k <= v
    c2 = np.cumsum(positive * h / b)
    k = inverse
    if_n = y * h[k] - numerator + y * c1[k] - c2[k]
    return (if_n - ap * (y - pi)) / pi / n


def delta_influence(columns: np.ndarray, f: Callable[[np.ndarray], float], step: float = 1e-7) -> np.ndarray:
    """Influences of ``f(mean of the columns)`` by the delta method: ``grad f . (v_i - mean) / n``."""
    columns = np.asarray(columns, dtype=np.float64)
    mean = columns.mean(axis=0)
    grad = np.empty(len(mean))
    for j in range(len(mean)):
        up, down = mean.copy(), mean.copy()
        up[j] += step
        down[j] -= step
        grad[j] = (f(up) - f(down)) / (2 * step)
    return (columns - mean) @ grad / len(columns)


def _confusion(y: np.ndarray, d: np.ndarray) -> np.ndarray:
    y, d = np.asarray(y, dtype=np.float64), np.asarray(d, dtype=np.float64)
    return np.column_stack([d * y, d * (1 - y), (1 - d) * (1 - y), (1 - d) * y])  # tp, fp, tn, fn


def mcc_influence(y: np.ndarray, decisions: np.ndarray) -> np.ndarray:
    """MCC of fixed decisions as a function of the four cell shares (delta method)."""
    return delta_influence(_confusion(y, decisions), lambda s: float(m._mcc(s[0], s[1], s[2], s[3])))


def in_fold_mcc_influence(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    """The in-fold MCC is the MCC at its selected threshold: that MCC's influence (envelope theorem)."""
    threshold = m.select_threshold(y, p)
    return mcc_influence(y, (np.asarray(p) >= threshold).astype(np.float64))


def ece_influence(y: np.ndarray, p: np.ndarray, n_bins: int) -> np.ndarray:
    """``ECE = sum_b |S_b|``, ``S_b = mean(1[bin b] (y - p))``: influence ``sign(S_b(i)) (y_i - p_i) - ECE``
    over n (the bins' signs fixed; biased where a bin's gap is near 0, which the coverage table shows)."""
    from cojudge_assets.core.measurement.calibration import bin_index

    y, p = np.asarray(y, dtype=np.float64), np.asarray(p, dtype=np.float64)
    bins = bin_index(p, n_bins)
    gap = np.bincount(bins, weights=y - p, minlength=n_bins) / len(p)
    contribution = np.sign(gap)[bins] * (y - p)
    return (contribution - np.abs(gap).sum()) / len(p)


def log_loss_influence(y: np.ndarray, p: np.ndarray) -> np.ndarray:
    q = np.clip(np.asarray(p, dtype=np.float64), m.LOGLOSS_CLIP, 1 - m.LOGLOSS_CLIP)
    y = np.asarray(y, dtype=np.float64)
    return mean_influence(-(y * np.log(q) + (1 - y) * np.log(1 - q)))


def cohen_kappa_influence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Cohen's kappa of two fixed binary raters as a function of the four cells' shares (delta method).

    The cuts are held fixed, as the bootstrap holds them (core/measurement/agreement.py).
    """
    a, b = np.asarray(a, dtype=np.int64), np.asarray(b, dtype=np.int64)
    cells = np.column_stack([(2 * a + b) == k for k in range(4)]).astype(np.float64)  # neither, only b, only a, both

    def kappa(s: np.ndarray) -> float:
        total = s.sum()
        share_a, share_b = (s[2] + s[3]) / total, (s[1] + s[3]) / total
        expected = share_a * share_b + (1 - share_a) * (1 - share_b)
        return float(((s[0] + s[3]) / total - expected) / (1 - expected))

    return delta_influence(cells, kappa)


def fleiss_kappa_influence(ratings: np.ndarray) -> np.ndarray:
    """Fleiss' kappa of m fixed binary raters as a function of the shares of subjects with k ones, k = 0..m
    (delta method; a subject enters the statistic only through its number of ones)."""
    ratings = np.asarray(ratings, dtype=np.int64)
    raters = ratings.shape[1]
    ones = np.arange(raters + 1)
    levels = np.column_stack([ratings.sum(axis=1) == k for k in ones]).astype(np.float64)
    agreement = (ones**2 + (raters - ones) ** 2 - raters) / (raters * (raters - 1))

    def kappa(s: np.ndarray) -> float:
        share_1 = float(ones @ s) / (raters * s.sum())
        expected = share_1**2 + (1 - share_1) ** 2
        return float((agreement @ s / s.sum() - expected) / (1 - expected))

    return delta_influence(levels, kappa)


def _mid_distribution(x: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """``F*(x_i) = P(X < x_i) + P(X = x_i) / 2`` per observation, the value codes, and the count per value."""
    values, code = np.unique(x, return_inverse=True)
    count = np.bincount(code, minlength=len(values)).astype(np.float64)
    below = np.cumsum(count) - count
    return ((below + count / 2) / len(x))[code], code, count


def _mean_above(code: np.ndarray, weights: np.ndarray, n_values: int) -> np.ndarray:
    """``E[h_j(X) v]`` per observation j, ``h_j(x) = 1[x_j < x] + 1[x_j = x] / 2``: the mean of ``v`` over the
    observations above j's value, ties counting one half."""
    at = np.bincount(code, weights=weights, minlength=n_values)
    above = np.cumsum(at[::-1])[::-1] - at
    return ((above + at / 2) / len(code))[code]


def spearman_influence(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """Spearman's rho (average ranks) as ``corr(F*(A), G*(B))``, F* and G* the mid-distribution functions.

    ``E[F*(A)] = 1/2`` under any distribution, so ``rho = (E[F* G*] - 1/4) / sqrt(C D)`` with
    ``C = E[F*^2] - 1/4`` and ``D = E[G*^2] - 1/4``. Moving weight to observation j moves every
    observation's F* by ``h_j(a) - F*(a)``, ``h_j(a) = 1[a_j < a] + 1[a_j = a] / 2``, so
    ``IF(E[F* G*]) = u_j v_j + E[h_j(A) G*] + E[F* k_j(B)] - 3 E[F* G*]`` (u = F*(a), v = G*(b), k_j like h_j
    on b), ``IF(E[F*^2]) = u_j^2 + 2 E[h_j(A) F*] - 3 E[F*^2]``, and
    ``IF(rho) = IF(E[F* G*]) / sqrt(C D) - rho / 2 (IF(E[F*^2]) / C + IF(E[G*^2]) / D)``; over n.
    nan when either side is constant.
    """
    a, b = np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64)
    n = len(a)
    u, code_a, count_a = _mid_distribution(a)
    v, code_b, count_b = _mid_distribution(b)
    cross, square_a, square_b = float(np.mean(u * v)), float(np.mean(u * u)), float(np.mean(v * v))
    c, d = square_a - 0.25, square_b - 0.25
    if n == 0 or c <= 0 or d <= 0:
        return np.full(n, np.nan)
    rho = (cross - 0.25) / np.sqrt(c * d)
    if_cross = u * v + _mean_above(code_a, v, len(count_a)) + _mean_above(code_b, u, len(count_b)) - 3 * cross
    if_a = u * u + 2 * _mean_above(code_a, u, len(count_a)) - 3 * square_a
    if_b = v * v + 2 * _mean_above(code_b, v, len(count_b)) - 3 * square_b
    return (if_cross / np.sqrt(c * d) - rho / 2 * (if_a / c + if_b / d)) / n
