"""Agreement between judges, and between runs of one judge.

Judges are compared with one another, not with the contest verdicts: do two
judges accept the same attempts, and do they order the attempts the same way?

* Decisions. Each judge's ``p_accept`` is cut at its own median
  (:func:`median_cut`): ``yhat = [p >= median(p)]``, ties at the median going to
  1 as in every decision ``yhat = [p >= t]``. The cut is taken once, on the full
  data, even under the bootstrap: the bootstrap resamples attempts, not the
  judges' thresholds.
* Pairwise agreement of decisions: Cohen's kappa, ``(po - pe) / (1 - pe)``
  with ``po`` the observed agreement and ``pe = pa pb + (1 - pa)(1 - pb)`` the
  agreement expected from the two marginals (:func:`cohen_kappa`).
* Panel agreement of decisions: Fleiss' (1971) kappa over all judges
  (:func:`fleiss_kappa`).
* Agreement of orderings: Spearman's rho, the Pearson correlation of average
  ranks (:func:`spearman`). ``rho - kappa`` in :func:`panel_agreement` is how
  much more the judges agree on the order of the attempts than on the decisions.
* Run-to-run agreement of one judge: Krippendorff's alpha at the interval level
  (:func:`krippendorff_alpha`).
* Judges that did not answer every attempt (they abstained on some): the panel
  score of an attempt is the mean percentile rank over the judges that answered
  it (:func:`answered_panel_score`). Which judges a pooled figure leaves out (a
  judge whose answers on the subset are all one value, or that answered nothing
  there) is decided by one rule, core/dynamics/pooling.py, which the measurement group and
  the rank consensus apply before calling these functions.

Bootstrap weights. Every statistic except :func:`krippendorff_alpha` takes an
optional weight matrix ``w`` of shape ``(B, n)``: ``w[b, i]`` is how many times
attempt ``i`` was drawn in resample ``b`` (0 if never). With ``w`` the result
is an array of shape ``(B,)`` whose entry ``b`` is the statistic on the data
with row ``i`` repeated ``w[b, i]`` times; without it, a float on the data as
given. All resamples are computed at once: the statistics are built from the
total weight, per resample, of a few categories of attempts (the four cells of
a 2x2 table, the number of judges saying 1, a judge's distinct scores), one
sparse-by-dense matrix product for all resamples, and for Spearman's rho from a
weighted sum over attempts.

A statistic whose denominator is 0 (a constant rater, an empty resample) is
nan, never an error.
"""

from __future__ import annotations

from itertools import combinations

import numpy as np


def median_cut(p: np.ndarray) -> np.ndarray:
    """Decisions at the median: 1 where ``p >= median(p)``, else 0.

    Ties at the median go to 1, as in every decision ``yhat = [p >= t]``.

    >>> median_cut(np.array([0.1, 0.4, 0.4, 0.9])).tolist()
    [0, 1, 1, 1]
    """
    p = _scores(p, "p")
    return (p >= np.median(p)).astype(int)


def percentile_ranks(p: np.ndarray) -> np.ndarray:
    """Each value's percentile rank within ``p``, in (0, 1]: its average rank divided by n.

    Tied values share their average rank.

    >>> percentile_ranks(np.array([0.2, 0.5, 0.5, 0.9])).tolist()
    [0.25, 0.625, 0.625, 1.0]
    """
    p = _scores(p, "p")
    from scipy.stats import rankdata  # scipy.stats is imported by the first call, not at start-up

    return rankdata(p, method="average") / len(p)


def answered_panel_score(answers: dict[str, tuple[np.ndarray, np.ndarray]]) -> tuple[np.ndarray, np.ndarray]:
    """The panel over judges that answered different attempts: ``(items, score)``.

    ``answers[judge] = (index, p)``: the attempts (integer positions) the judge
    answered and its ``p_accept`` on them. Each judge's answers become percentile
    ranks within its own answers (:func:`percentile_ranks`); ``items`` are the
    attempts at least one judge answered, sorted, and ``score[i]`` the mean rank
    over the judges that answered ``items[i]``. With every judge answering every
    attempt this is the plain mean of the judges' percentile ranks.

    >>> items, score = answered_panel_score({"a": (np.array([0, 1, 2]), np.array([0.1, 0.5, 0.9])),
    ...                                      "b": (np.array([1, 2]), np.array([0.8, 0.2]))})
    >>> items.tolist(), score.round(4).tolist()
    ([0, 1, 2], [0.3333, 0.8333, 0.75])
    """
    if not answers:
        raise ValueError("a panel needs at least 1 judge, got none")
    indexes = {}
    for name, (index, p) in answers.items():
        index, p = np.asarray(index), _scores(p, name)
        if index.shape != p.shape or len(np.unique(index)) != len(index):
            raise ValueError(
                f"{name}: index must hold one distinct attempt per answer, got shapes {index.shape} and {p.shape}"
            )
        indexes[name] = index
    items = np.unique(np.concatenate(list(indexes.values())))
    total, count = np.zeros(len(items)), np.zeros(len(items))
    for name, (_, p) in answers.items():
        at = np.searchsorted(items, indexes[name])
        total[at] += percentile_ranks(p)
        count[at] += 1
    return items, total / count


def cohen_kappa(a: np.ndarray, b: np.ndarray, w: np.ndarray | None = None) -> float | np.ndarray:
    """Cohen's kappa of two binary raters.

    ``kappa = (po - pe) / (1 - pe)`` with ``po`` the share of rows on which
    ``a == b`` and ``pe = pa pb + (1 - pa)(1 - pb)``, ``pa`` and ``pb`` the
    shares of 1s. nan when ``pe == 1`` (both raters constant, at the same value).

    >>> cohen_kappa(np.array([1, 1, 0, 0]), np.array([1, 0, 0, 0]))
    0.5
    """
    a, b = _binary(a, "a", ndim=1), _binary(b, "b", ndim=1)
    _same_length(a, b)
    return _result(_cohen_kappa(a, b, _weights(w, len(a))), w)


def fleiss_kappa(ratings: np.ndarray, w: np.ndarray | None = None) -> float | np.ndarray:
    """Fleiss' (1971) kappa of m raters sorting n subjects into 2 categories.

    ``ratings[i, r]`` is rater r's category (0 or 1) for subject i. With
    ``n_ij`` the number of raters putting subject i in category j::

        P_i   = (sum_j n_ij**2 - m) / (m (m - 1))      agreement on subject i
        P_bar = mean_i P_i
        p_j   = sum_i n_ij / (n m)                     share of category j
        P_e   = sum_j p_j**2
        kappa = (P_bar - P_e) / (1 - P_e)

    nan when every rating falls in one category (``P_e == 1``).

    >>> fleiss_kappa(np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 0]]))  # doctest: +ELLIPSIS
    0.333...
    """
    ratings = _binary(ratings, "ratings", ndim=2)
    if ratings.shape[1] < 2:
        raise ValueError(f"ratings must have shape (n, m) with m >= 2 raters, got {ratings.shape}")
    return _result(_fleiss_kappa(ratings, _weights(w, ratings.shape[0])), w)


def spearman(a: np.ndarray, b: np.ndarray, w: np.ndarray | None = None) -> float | np.ndarray:
    """Spearman's rho: the Pearson correlation of the average ranks of ``a`` and ``b``.

    Under weights the ranks are those of the weighted multiset: value v has
    average rank ``W(< v) + (W(= v) + 1) / 2``, W the summed weights, and the
    Pearson correlation is weighted the same way. With integer weights this is
    ``scipy.stats.spearmanr`` on the repeated rows. nan when either side has
    fewer than 2 distinct values with positive weight.

    >>> spearman(np.array([0.1, 0.2, 0.2, 0.9]), np.array([1.0, 3.0, 2.0, 4.0]))  # doctest: +ELLIPSIS
    0.948...
    """
    a, b = _scores(a, "a"), _scores(b, "b")
    _same_length(a, b)
    weights = _weights(w, len(a))
    return _result(_rank_correlation(_Ranks(a, weights), _Ranks(b, weights), weights), w)


def pairwise_agreement(preds: dict[str, np.ndarray], w: np.ndarray | None = None) -> list[dict]:
    """Kappa of the median cuts and rho of ``p_accept``, for every pair of judges.

    One dict ``{"judge_a", "judge_b", "kappa", "rho"}`` per unordered pair,
    judges in name order. Each judge is cut at its own median once, on the full
    data; under ``w`` the bootstrap resamples the attempts with the cuts fixed
    (see module docstring).
    """
    scores = _panel_scores(preds)
    return _pairwise(scores, _weights(w, _attempts(scores)), w)


def panel_agreement(preds: dict[str, np.ndarray], w: np.ndarray | None = None) -> dict:
    """Agreement of the whole panel of judges.

    ``fleiss_kappa`` over the median cuts of all judges; ``mean_kappa`` and
    ``mean_rho`` the means over the pairs of :func:`pairwise_agreement` (nan if
    any pair's is); ``rho_minus_kappa = mean_rho - mean_kappa``. Floats, or
    ``(B,)`` arrays under ``w``.
    """
    scores = _panel_scores(preds)
    if len(scores) < 2:
        raise ValueError(f"a panel needs at least 2 judges, got {list(scores)}")
    weights = _weights(w, _attempts(scores))
    pairs = _pairwise(scores, weights, w)
    cuts = np.column_stack([median_cut(p) for p in scores.values()])
    mean_kappa = _result(np.mean([np.atleast_1d(pair["kappa"]) for pair in pairs], axis=0), w)
    mean_rho = _result(np.mean([np.atleast_1d(pair["rho"]) for pair in pairs], axis=0), w)
    return {
        "fleiss_kappa": _result(_fleiss_kappa(cuts, weights), w),
        "mean_kappa": mean_kappa,
        "mean_rho": mean_rho,
        "rho_minus_kappa": mean_rho - mean_kappa,
    }


def krippendorff_alpha(runs: np.ndarray) -> float:
    """Krippendorff's alpha (interval) of one judge run several times on the same requests.

    ``runs`` has shape ``(n_runs, n_units)``, np.nan where a run has no value
    for a unit. Units with values from at least 2 runs are pairable; the others
    carry no information on agreement. ``alpha = 1 - D_o / D_e``: the squared
    differences between values of the same unit over those between any two
    pairable values. nan when no unit is pairable or all pairable values are
    equal (``D_e == 0``).

    >>> round(krippendorff_alpha(np.array([[1, 2, 3, 4], [1, 2, 3, 5]])), 6)
    0.936937
    """
    runs = np.asarray(runs, dtype=float)
    if runs.ndim != 2:
        raise ValueError(f"runs must have shape (n_runs, n_units), got {runs.shape}")
    if np.isinf(runs).any():
        raise ValueError("runs must be finite or nan")
    pairable = runs[:, (~np.isnan(runs)).sum(axis=0) >= 2]
    if len(np.unique(pairable[~np.isnan(pairable)])) < 2:
        return float("nan")
    from cojudge_assets.core.stats.reliability import interval_alpha

    # the krippendorff package's own form builds a units x V x V array (V distinct values: as many as answers for a
    # continuous p); interval_alpha is the same figure in O(n) (tested equal to the package: issue 33)
    return interval_alpha(pairable)


# -- statistics per resample; ``weights`` is (n, B) as returned by _weights --------------------------------


def _cohen_kappa(a: np.ndarray, b: np.ndarray, weights: np.ndarray) -> np.ndarray:
    neither, only_b, only_a, both = _category_weights(2 * a + b, 4, weights)
    a_1, a_0, b_1, b_0 = both + only_a, only_b + neither, both + only_b, only_a + neither
    # raters constant at the same value give po = pe = 1 exactly (their cells outside the diagonal are
    # sums of nothing), so kappa is 0/0 = nan; an empty resample is 0/0 from the start
    with np.errstate(divide="ignore", invalid="ignore"):
        observed = (both + neither) / (a_1 + a_0)
        share_a, share_b = a_1 / (a_1 + a_0), b_1 / (b_1 + b_0)
        expected = share_a * share_b + (1 - share_a) * (1 - share_b)
        return (observed - expected) / (1 - expected)


def _fleiss_kappa(ratings: np.ndarray, weights: np.ndarray) -> np.ndarray:
    raters = ratings.shape[1]
    # a subject enters only through how many raters put it in category 1
    ones = np.arange(raters + 1)
    zeros = raters - ones
    subjects = _category_weights(ratings.sum(axis=1), raters + 1, weights)
    agreement = (ones**2 + zeros**2 - raters) / (raters * (raters - 1))
    ones_total, zeros_total = ones @ subjects, zeros @ subjects
    # all ratings in one category give P_bar = P_e = 1 exactly (the other levels weigh exactly 0): 0/0 = nan
    with np.errstate(divide="ignore", invalid="ignore"):
        mean_agreement = agreement @ subjects / subjects.sum(axis=0)
        share_1 = ones_total / (ones_total + zeros_total)
        expected = share_1**2 + (1 - share_1) ** 2
        return (mean_agreement - expected) / (1 - expected)


def _pairwise(scores: dict[str, np.ndarray], weights: np.ndarray, w: np.ndarray | None) -> list[dict]:
    cuts = {name: median_cut(p) for name, p in scores.items()}
    ranks = {name: _Ranks(p, weights) for name, p in scores.items()}
    return [
        {
            "judge_a": x,
            "judge_b": y,
            "kappa": _result(_cohen_kappa(cuts[x], cuts[y], weights), w),
            "rho": _result(_rank_correlation(ranks[x], ranks[y], weights), w),
        }
        for x, y in combinations(scores, 2)
    ]


class _Ranks:
    """One judge's average ranks in every weighted resample, centred on their weighted mean.

    ``ranks`` is (n, B). The weighted mean rank is ``(W + 1) / 2`` (W the
    resample's total weight) whatever the ties, so it is subtracted without a
    pass over the data. ``norm`` is the square root of the weighted sum of
    squared centred ranks: exactly 0 when one value carries all the weight (its
    centred rank is ``W - W/2 - W/2``), else positive.
    """

    def __init__(self, x: np.ndarray, weights: np.ndarray):
        values, value_of = np.unique(x, return_inverse=True)
        weight_of_value = _category_weights(value_of, len(values), weights)
        # W(< v) + (W(= v) + 1) / 2 - (W + 1) / 2  =  W(<= v) - W(= v) / 2 - W / 2, in place: (values, B) is large
        centred = _running_sum(weight_of_value)
        centred -= weight_of_value / 2
        centred -= weight_of_value.sum(axis=0) / 2
        self.norm = np.sqrt(np.einsum("kb,kb,kb->b", weight_of_value, centred, centred))
        self.ranks = centred[value_of]


def _rank_correlation(x: _Ranks, y: _Ranks, weights: np.ndarray) -> np.ndarray:
    # a side without order has centred ranks exactly 0 wherever there is weight: 0/0 = nan
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.einsum("ib,ib,ib->b", weights, x.ranks, y.ranks) / (x.norm * y.norm)


def _running_sum(rows: np.ndarray) -> np.ndarray:
    """``np.cumsum(rows, axis=0)``, one row of B resamples at a time.

    2 to 3 times faster than ``np.cumsum``, which accumulates element by element
    (measured for 100 to 50,000 rows, B from 250 to 2,000). The loop runs over
    a judge's distinct scores, never over resamples.
    """
    running = rows.copy()
    for k in range(1, len(running)):
        running[k] += running[k - 1]
    return running


def _category_weights(category: np.ndarray, categories: int, weights: np.ndarray) -> np.ndarray:
    """(categories, B): the total weight of the rows in each category, in every resample."""
    rows = len(category)
    from scipy import sparse

    indicator = sparse.csr_matrix((np.ones(rows), (category, np.arange(rows))), shape=(categories, rows))
    return indicator @ weights


# -- validation --------------------------------------------------------------------------------------------


def _scores(p: np.ndarray, name: str) -> np.ndarray:
    p = np.asarray(p, dtype=float)
    if p.ndim != 1 or not np.isfinite(p).all():
        raise ValueError(f"{name} must be a finite 1-D array, got shape {p.shape}")
    return p


def _panel_scores(preds: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """The judges' scores in name order, all of one length."""
    scores = {name: _scores(preds[name], name) for name in sorted(preds)}
    lengths = {name: len(p) for name, p in scores.items()}
    if len(set(lengths.values())) > 1:
        raise ValueError(f"judges rated different numbers of attempts: {lengths}")
    return scores


def _attempts(scores: dict[str, np.ndarray]) -> int:
    return len(next(iter(scores.values()))) if scores else 0


def _binary(x: np.ndarray, name: str, *, ndim: int) -> np.ndarray:
    x = np.asarray(x)
    if x.ndim != ndim or not np.isin(x, (0, 1)).all():
        raise ValueError(f"{name} must be a {ndim}-D array of 0 and 1, got shape {x.shape}")
    return x.astype(int)


def _same_length(a: np.ndarray, b: np.ndarray) -> None:
    if a.shape != b.shape:
        raise ValueError(f"raters have different shapes: {a.shape} and {b.shape}")


def _weights(w: np.ndarray | None, n: int) -> np.ndarray:
    """The bootstrap weights as (n, B), one column per resample; a single column of ones without ``w``.

    Attempts along the first axis make a resample's totals a sparse matrix times
    contiguous rows of B values.
    """
    if w is None:
        return np.ones((n, 1))
    w = np.asarray(w, dtype=float)
    if w.ndim != 2 or w.shape[1] != n:
        raise ValueError(f"w must have shape (B, {n}), got {w.shape}")
    if not np.isfinite(w).all() or (w < 0).any():
        raise ValueError("w must be finite and nonnegative")
    return np.ascontiguousarray(w.T)


def _result(values: np.ndarray, w: np.ndarray | None) -> float | np.ndarray:
    return float(values[0]) if w is None else values
