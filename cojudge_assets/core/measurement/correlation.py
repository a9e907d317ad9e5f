"""Correlation between a judge's score and the label, as the ICE-Score study reports it.

For one judge x condition, with labels y in {0, 1} and scores s:

* corpus level: Kendall's tau-b, Spearman's rho and Pearson's r over all items (scipy.stats);
* example level: the same statistic within each problem, then the mean over the problems where it is
  defined. A problem with fewer than two items, or whose labels or scores are all equal, has no
  correlation and is left out of the mean (compute_results.ipynb takes ``numpy.nanmean`` of scipy's values,
  which are nan exactly there). ``n`` is the number of items (corpus) or of problems averaged (example).

Intervals are 95 % percentile intervals over ``resamples`` bootstrap replicates drawn from one seeded
``numpy.random.Generator`` (at the corpus level, with at least ``analytic_from`` items, analytic intervals
clustered the same way instead: core/stats/analytic.py; column ``ci_method``):

* corpus level: clusters (``groups``, e.g. trajectories or problems) are drawn with replacement, as many as
  there are, and every item of a drawn cluster enters once per draw;
* example level: the problems' values are resampled (problems drawn with replacement; the replicate is the
  mean of the defined values drawn).

How, and why not scipy everywhere: a replicate is the statistic on the resampled multiset, computed exactly
without building it. Items are sorted by score once; a resample's draw counts are accumulated along that order
and read at the end of each distinct score (cells), which gives per cell the items and positives drawn and
how many lie below it. Then tau-b = (sum over positives of negatives below minus negatives above) /
sqrt((pairs - label ties) x (pairs - score ties)), ties counted within cells; Spearman = Pearson on the
cells' midranks; Pearson from the weighted moments. The per-problem values use the same formulas with one
problem per multiset. Both equal scipy.stats on the explicit arrays (cojudge_tests/core/test_correlation.py,
and on the whole ICE-Score release in test_icescore.py). Measured as CPU time on a shared 2-core machine under
load (load average 12): scipy's tau-b on one resample of 6,400 items takes 7-12 ms, so 1000 replicates would
take 7-12 s per judge; here a whole table (1000 corpus replicates, every problem, 1000 example replicates)
takes about 0.35 s: the ICE-Score release's 12 judges x 3 subsets (java, python, both) 13 s of CPU (55 s of
wall clock on that machine), so 20 judges x 3 subsets about 22 s of CPU. scipy's three calls per problem
alone would add about 1 s per table.
"""

from __future__ import annotations

import warnings

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.stats.bootstrap import cluster_counts, interval

METRICS = ("kendall_tau_b", "spearman", "pearson")
_BLOCK = 50  # resamples per block: a few (block x distinct scores) matrices that stay in cache (measured:
# 50 takes about half the time of 200; the replicates do not depend on it)


def _validate(y, score, groups, problems, resamples: int):
    y = np.asarray(y)
    score = np.asarray(score, dtype=np.float64)
    groups = np.asarray(groups)
    problems = np.asarray(problems)
    for name, values in (("y", y), ("score", score), ("groups", groups), ("problems", problems)):
        if values.ndim != 1:
            raise ValueError(f"{name}: expected a 1-d array, got shape {values.shape}")
    n = len(y)
    for name, values in (("score", score), ("groups", groups), ("problems", problems)):
        if len(values) != n:
            raise ValueError(f"{name}: length {len(values)} differs from y's length {n}")
    if n and not np.all(np.isin(y, (0, 1))):
        bad = y[~np.isin(y, (0, 1))][:3]
        raise ValueError(f"y: labels must be 0 or 1, got {bad.tolist()}")
    if not np.all(np.isfinite(score)):
        raise ValueError(f"score: {int((~np.isfinite(score)).sum())} values are not finite numbers")
    if not isinstance(resamples, int | np.integer) or resamples < 0:
        raise ValueError(f"resamples: expected a non-negative integer, got {resamples!r}")
    return (
        y.astype(np.int64),
        score,
        np.unique(groups, return_inverse=True)[1],
        np.unique(problems, return_inverse=True)[1],
    )


def _defined(y: np.ndarray, s: np.ndarray) -> bool:
    return len(y) >= 2 and np.ptp(y) > 0 and np.ptp(s) > 0


def _scipy_statistics(y: np.ndarray, s: np.ndarray) -> tuple[float, float, float]:
    """(tau-b, rho, r) by scipy.stats; nan where a correlation is undefined."""
    from scipy import stats

    if not _defined(y, s):
        return float("nan"), float("nan"), float("nan")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", stats.ConstantInputWarning)
        return (
            float(stats.kendalltau(y, s).statistic),
            float(stats.spearmanr(y, s).statistic),
            float(stats.pearsonr(y, s).statistic),
        )


def _from_cells(
    a: np.ndarray,
    w: np.ndarray,
    values: np.ndarray,
    before: np.ndarray,
    below: np.ndarray,
    n1: np.ndarray,
    n0: np.ndarray,
    dot,
) -> np.ndarray:
    """tau-b, rho, r from per-cell counts of positives ``a`` and of all items ``w`` at distinct scores.

    Cells are in ascending score order within each multiset; ``before``/``below`` count all items / the
    negatives of the same multiset at lower scores; ``dot(x, z[, v])`` sums x * z (* v) over the cells of each
    multiset; ``values`` are the cells' scores, centred (Pearson is shift-invariant: moments without
    cancellation). Counts are integers, so the pair counts below are exact in float64.
    """
    n = n1 + n0
    w_w, a_w, a_a = dot(w, w), dot(a, w), dot(a, a)
    with np.errstate(invalid="ignore", divide="ignore"):
        # tau-b: concordant - discordant = sum over positives of (negatives below - negatives above);
        # ties: within each label, and within each distinct score
        pairs = n * (n - 1) / 2
        tied_y = n1 * (n1 - 1) / 2 + n0 * (n0 - 1) / 2
        tied_s = (w_w - n) / 2
        net = 2 * dot(a, below) + (a_w - a_a) - n1 * n0
        tau = net / np.sqrt((pairs - tied_y) * (pairs - tied_s))
        # Spearman: Pearson on midranks (both rank vectors have mean (n + 1) / 2)
        rank_s = w + 1
        rank_s *= 0.5
        rank_s += before
        rank_neg, rank_pos = (n0 + 1) / 2, n0 + (n1 + 1) / 2
        centre = (n + 1) / 2
        on_positives, on_all = dot(a, rank_s), dot(w, rank_s)
        cov = (on_positives * rank_pos + (on_all - on_positives) * rank_neg) / n - centre**2
        var_s = dot(w, rank_s, rank_s) / n - centre**2
        var_y = (n1 * rank_pos**2 + n0 * rank_neg**2) / n - centre**2
        rho = cov / np.sqrt(var_s * var_y)
        # Pearson
        mean_s, mean_y = dot(w, values) / n, n1 / n
        cov = dot(a, values) / n - mean_y * mean_s
        var_s = dot(w, values, values) / n - mean_s**2
        r = cov / np.sqrt(var_s * mean_y * (1 - mean_y))
        out = np.stack([tau, rho, r], axis=-1)
    # undefined: one label only, or one distinct score only (every pair tied on the score)
    out[~((n1 > 0) & (n0 > 0) & (pairs - tied_s > 0.5))] = np.nan
    return out


def _resampled(
    y: np.ndarray, s: np.ndarray, clusters: np.ndarray, counts: np.ndarray, order: np.ndarray | None = None
) -> np.ndarray:
    """(B, 3) statistics on the multisets where cluster g enters ``counts[b, g]`` times (see module doc);
    ``order`` = a stable argsort of ``s`` (computed when not given)."""
    order = np.argsort(s, kind="stable") if order is None else order
    ordered = s[order]
    starts = np.flatnonzero(np.r_[True, ordered[1:] != ordered[:-1]])
    items = np.ascontiguousarray(counts.T)[clusters[order]]  # (n, B): how often each item was drawn
    positives = items * y[order, None]
    # cumulative draws through the end of each distinct score (K, B); per-score counts are their differences
    ends = np.r_[starts[1:], len(s)] - 1
    through = np.add.accumulate(items, axis=0, out=items)[ends]
    through_positive = np.add.accumulate(positives, axis=0, out=positives)[ends]
    before = np.zeros_like(through)
    before[1:] = through[:-1]
    w = through - before
    below = np.zeros_like(through)  # negatives at lower scores
    below[1:] = through_positive[:-1]
    a = through_positive - below
    np.subtract(before, below, out=below)
    n1 = a.sum(axis=0)
    values = ordered[starts] - s.mean()

    def dot(x, z, v=None):
        if z.ndim == 1:  # the cells' values: matrix-vector products
            return (z if v is None else z * v) @ x
        return np.einsum("kb,kb->b", x, z) if v is None else np.einsum("kb,kb,kb->b", x, z, v)

    return _from_cells(a, w, values, before, below, n1, w.sum(axis=0) - n1, dot)


def _per_problem(y: np.ndarray, s: np.ndarray, problem: np.ndarray) -> np.ndarray:
    """(P, 3) statistics within each problem (codes 0..P-1), all problems at once (equal to scipy's, tested)."""
    p = int(problem.max()) + 1 if len(problem) else 0
    order = np.lexsort((s, problem))
    ps, ss, ys = problem[order], s[order], y[order].astype(np.float64)
    first = np.r_[True, (ps[1:] != ps[:-1]) | (ss[1:] != ss[:-1])]
    cell = np.cumsum(first) - 1
    k = int(cell[-1]) + 1 if len(cell) else 0
    a, w = np.bincount(cell, ys, k), np.bincount(cell, minlength=k).astype(np.float64)
    owner = ps[first]
    n1, n = np.bincount(owner, a, p), np.bincount(owner, w, p)
    before = np.cumsum(w) - w - (np.cumsum(n) - n)[owner]
    below = before - (np.cumsum(a) - a - (np.cumsum(n1) - n1)[owner])
    mean_s = np.bincount(ps, ss, p) / np.maximum(n, 1)
    return _from_cells(
        a, w, ss[first] - mean_s[owner], before, below, n1, n - n1, lambda x, z, v=1.0: np.bincount(owner, x * z * v, p)
    )


def _analytic_corpus(y: np.ndarray, s: np.ndarray, clusters: np.ndarray, values) -> list[tuple[float, float]]:
    """The corpus level's intervals from the influences clustered by ``clusters`` (core/stats/analytic.py)."""
    from cojudge_assets.core.stats import analytic as an

    g = int(clusters.max()) + 1
    influences = (an.kendall_tau_b_influence(y, s), an.spearman_influence(y, s), an.pearson_influence(y, s))
    return [
        an.interval_from_totals(float(value), an.cluster_totals(influence, clusters, g))
        for value, influence in zip(values, influences)
    ]


def correlation_table(
    y, score, groups, *, problems, resamples: int = 1000, seed: int = SEED, analytic_from: int | None = None
) -> list[dict]:
    """Corpus- and example-level tau-b, Spearman and Pearson of ``score`` against ``y``, with intervals.

    Rows ``{"metric": "<kendall_tau_b|spearman|pearson>_<corpus|example>", "value", "lo", "hi", "n",
    "ci_method"}``. With at least ``analytic_from`` items the corpus level's intervals are analytic, clustered by
    ``groups`` (no resample is drawn for them); the example level's always resample the problems' values, which
    costs one value per problem.

    >>> rows = correlation_table([0, 0, 1, 1, 0, 1], [0.1, 0.4, 0.35, 0.8, 0.2, 0.9], [0, 0, 0, 1, 1, 1],
    ...                          problems=[0, 0, 0, 1, 1, 1], resamples=0)
    >>> [(r["metric"], round(r["value"], 4), r["n"]) for r in rows][::3]
    [('kendall_tau_b_corpus', 0.6025, 6), ('kendall_tau_b_example', 0.4082, 2)]
    """
    y, s, clusters, problem = _validate(y, score, groups, problems, resamples)
    rng = np.random.default_rng(seed)
    corpus = _scipy_statistics(y, s)
    corpus_reps = np.empty((0, 3))
    analytic = analytic_from is not None and len(y) >= analytic_from and _defined(y, s)
    corpus_intervals = _analytic_corpus(y, s, clusters, corpus) if analytic else None
    if resamples and _defined(y, s) and not analytic:
        g = int(clusters.max()) + 1
        blocks, order = [], np.argsort(s, kind="stable")
        for counts in cluster_counts(g, resamples, rng, block=_BLOCK):
            blocks.append(_resampled(y, s, clusters, counts, order))
        corpus_reps = np.concatenate(blocks)
    per_problem = _per_problem(y, s, problem)
    defined = np.isfinite(per_problem[:, 0])
    example = per_problem[defined].mean(axis=0) if defined.any() else np.full(3, np.nan)
    example_reps = np.empty((0, 3))
    if resamples and defined.any():
        p = len(per_problem)
        counts = np.concatenate(list(cluster_counts(p, resamples, rng)))
        filled = np.where(defined[:, None], per_problem, 0.0)
        with np.errstate(invalid="ignore", divide="ignore"):
            example_reps = (counts @ filled) / (counts @ defined.astype(np.float64))[:, None]
    rows = []
    for level, values, reps, n in (
        ("corpus", corpus, corpus_reps, len(y)),
        ("example", example, example_reps, int(defined.sum())),
    ):
        for j, name in enumerate(METRICS):
            method = "analytic" if level == "corpus" and corpus_intervals is not None else "bootstrap"
            if method == "analytic":
                assert corpus_intervals is not None
                lo, hi = corpus_intervals[j]
            else:
                lo, hi = interval(reps[:, j]) if len(reps) else (float("nan"), float("nan"))
            row = {"metric": f"{name}_{level}", "value": float(values[j]), "lo": lo, "hi": hi, "n": n}
            rows.append({**row, "ci_method": method})
    return rows


CORRELATION_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "subset": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
    "ci_method": pl.String,
}


def correlations(
    predictions: pl.DataFrame, *, resamples: int = 1000, seed: int = SEED, analytic_from: int | None = None
) -> pl.DataFrame:
    """:func:`correlation_table` for every judge x condition of a predictions table (core/measurement/predictions.py),
    on
    all its attempts (subset ``all``) and, when the attempts are in more than one language, on each language's.
    Intervals resample trajectories (participant x problem: the problem itself in a corpus without
    participants); the example level averages over problems."""
    rows: list[dict] = []
    languages = sorted(predictions["language"].drop_nulls().unique().to_list()) if len(predictions) else []
    subsets = [("all", predictions)]
    if len(languages) > 1:
        subsets += [(language, predictions.filter(pl.col("language") == language)) for language in languages]
    for subset, frame in subsets:
        for (judge, condition), cell in frame.group_by("judge", "condition", maintain_order=True):
            cell = cell.filter(pl.col("p_accept").is_not_null())
            if len(cell) < 2:
                continue
            groups = cell.select(pl.struct("participant", "problem_id").rank("dense")).to_series().to_numpy() - 1
            problems = cell["problem_id"].rank("dense").to_numpy() - 1
            for row in correlation_table(
                cell["y"].to_numpy(),
                cell["p_accept"].to_numpy(),
                groups,
                problems=problems,
                resamples=resamples,
                seed=seed,
                analytic_from=analytic_from,
            ):
                rows.append({"judge": judge, "condition": condition, "subset": subset, **row})
    return pl.DataFrame(rows, schema=CORRELATION_SCHEMA).sort("judge", "condition", "subset", "metric")
