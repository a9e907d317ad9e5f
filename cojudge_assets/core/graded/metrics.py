"""Judges scored against the graded programs' ceilings (AXIOM's Table III and its MCC per subtask).

**Scores on the 0-5 scale.** Each judge's answer is mapped to AXIOM's scale, one *answer kind* each:

* ``p_accept`` (every judge): ``5 * p_accept`` - the judge's probability that the program is accepted, read
  as the share of the full score it deserves;
* ``rubric`` (judges that return the rubric): ``5 * (mean(s_algo, s_robust) - 1) / 4`` - the two 1-5 rubric
  scores averaged and stretched linearly onto 0-5 (1 -> 0, 5 -> 5);
* ``similarity`` (the reference-based judges): ``5 * similarity`` - chrF++ / 100, CodeBLEU, or the normalised
  Levenshtein similarity of the program to its seed, each in [0, 1] (:func:`reference_scores`).

**Metrics** against the ceilings (1..5), each with a percentile interval from a bootstrap clustered by seed
(a seed's graded programs are drawn together, core/stats/bootstrap.py):

* ``spearman_rho``, ``kendall_tau`` (tau-b; scipy). Undefined for a constant judge: value NaN, ``note``
  ``constant``;
* ``krippendorff_alpha``: interval level, the judge and the ceilings as two coders (the ``krippendorff``
  package);
* ``emd``: ``scipy.stats.wasserstein_distance`` between the judge's score distribution and the ceilings';
* ``mean_score`` per ceiling (``subset`` = the ceiling);
* ``mcc`` per pair of adjacent ceilings (``subset`` ``k-k+1``): the programs of those two ceilings, the
  truth "ceiling k+1", the prediction "score >= k + 0.5" (the midpoint), sklearn's matthews_corrcoef.

Values are in [-1, 1] for rho, tau, alpha and MCC (AXIOM prints them x100), on the 0-5 scale for EMD and means.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.perturbation.stats import METRIC_SCHEMA as PERTURBATION_METRICS
from cojudge_assets.core.stats.bootstrap import BLOCK, cluster_codes, cluster_counts, interval

CEILINGS = (1, 2, 3, 4, 5)
REFERENCE_JUDGES = ("chrF++", "CodeBLEU", "edit-similarity")
# the perturbation study's metric table (core/perturbation/stats.py), per answer kind, with a note
METRIC_SCHEMA = {
    "judge": pl.String,
    "answer": pl.String,
    **{name: dtype for name, dtype in PERTURBATION_METRICS.items() if name != "judge"},
    "note": pl.String,
}
SCORE_SCHEMA = {
    "judge": pl.String,
    "answer": pl.String,
    "program_uid": pl.String,
    "seed_uid": pl.String,
    "ceiling": pl.Int64,
    "score": pl.Float64,
}


def judge_scores(graded: pl.DataFrame, outputs: pl.DataFrame | None) -> pl.DataFrame:
    """The judges' valid answers on the graded programs as 0-5 scores, one row per (judge, answer kind,
    program) (module docstring); ``outputs`` holds judge, attempt_uid (the program_uid), status, p_accept,
    s_algo, s_robust."""
    if outputs is None or outputs.is_empty():
        return pl.DataFrame(schema=SCORE_SCHEMA)
    programs = graded.filter(pl.col("graded")).select("program_uid", "seed_uid", "ceiling")
    valid = outputs.filter(pl.col("status") == "ok").rename({"attempt_uid": "program_uid"})
    valid = valid.join(programs, on="program_uid", how="inner")
    p_accept = valid.filter(pl.col("p_accept").is_not_null()).select(
        "judge",
        pl.lit("p_accept").alias("answer"),
        "program_uid",
        "seed_uid",
        "ceiling",
        (5 * pl.col("p_accept").cast(pl.Float64)).alias("score"),
    )
    columns = set(valid.columns)
    if not {"s_algo", "s_robust"} <= columns:
        return p_accept.cast(SCORE_SCHEMA)  # type: ignore[arg-type]
    rubric = valid.filter(pl.col("s_algo").is_not_null() & pl.col("s_robust").is_not_null()).select(
        "judge",
        pl.lit("rubric").alias("answer"),
        "program_uid",
        "seed_uid",
        "ceiling",
        (5 * ((pl.col("s_algo") + pl.col("s_robust")).cast(pl.Float64) / 2 - 1) / 4).alias("score"),
    )
    return pl.concat([p_accept, rubric]).cast(SCORE_SCHEMA)  # type: ignore[arg-type]


_CHRF = None


def chrf_plus_plus(reference: str, candidate: str) -> float:
    """chrF++ (character 6-grams and word 2-grams, beta 2; sacrebleu) of ``candidate`` against ``reference``,
    in [0, 1]."""
    global _CHRF
    if _CHRF is None:
        from sacrebleu.metrics import CHRF

        _CHRF = CHRF(word_order=2)
    return float(_CHRF.sentence_score(candidate, [reference]).score) / 100


def edit_similarity(reference: str, candidate: str) -> float:
    """1 - Levenshtein distance / the longer length (rapidfuzz), in [0, 1]."""
    from rapidfuzz.distance import Levenshtein

    return float(Levenshtein.normalized_similarity(reference, candidate))


def reference_scores(graded: pl.DataFrame, seeds: pl.DataFrame) -> pl.DataFrame:
    """The reference-based judges' 0-5 scores of the graded programs, each against its seed program."""
    from cojudge_assets.core.dynamics.trajectories import codebleu_similarity

    seed_code = dict(zip(seeds["seed_uid"].to_list(), seeds["code"].to_list()))
    measures: dict[str, Callable[[str, str, str], float | None]] = {
        "chrF++": lambda r, c, _: chrf_plus_plus(r, c),
        "CodeBLEU": lambda r, c, language: codebleu_similarity(r, c, language),
        "edit-similarity": lambda r, c, _: edit_similarity(r, c),
    }
    rows = []
    for program in graded.filter(pl.col("graded")).sort("program_uid").iter_rows(named=True):
        reference = seed_code[program["seed_uid"]]
        for judge, measure in measures.items():
            value = measure(reference, program["code"], program["language"])
            if value is not None:
                rows.append(
                    {
                        "judge": judge,
                        "answer": "similarity",
                        "program_uid": program["program_uid"],
                        "seed_uid": program["seed_uid"],
                        "ceiling": program["ceiling"],
                        "score": 5 * value,
                    }
                )
    return pl.DataFrame(rows, schema=SCORE_SCHEMA)


def _constant(x: np.ndarray) -> bool:
    return len(x) == 0 or bool(np.all(x == x[0]))


def spearman(score: np.ndarray, ceiling: np.ndarray) -> float:
    """Spearman's rho: the Pearson correlation of the average ranks (what scipy.stats.spearmanr computes, without
    its per-call overhead, which the bootstrap pays a thousand times; tested equal)."""
    from scipy import stats

    if _constant(score) or _constant(ceiling):
        return float("nan")
    return float(np.corrcoef(stats.rankdata(score), stats.rankdata(ceiling))[0, 1])


def kendall(score: np.ndarray, ceiling: np.ndarray) -> float:
    from scipy import stats

    if _constant(score) or _constant(ceiling):
        return float("nan")
    return float(stats.kendalltau(score, ceiling).statistic)


def alpha_interval(score: np.ndarray, ceiling: np.ndarray) -> float:
    """Krippendorff's alpha, interval level, of the judge and the ceilings as two coders of the programs, in
    O(n) (core/stats/reliability.py: the ``krippendorff`` package's units x V x V array does not fit when every
    score is distinct; it stays the reference in the tests)."""
    from cojudge_assets.core.stats.reliability import interval_alpha

    return interval_alpha(np.vstack([score, ceiling]))


def alpha_interval_two_coders(score: np.ndarray, ceiling: np.ndarray) -> float:
    """The same alpha in closed form for two coders and no missing value (the bootstrap's replicates, where
    the package's general computation costs more than every other statistic together): D_o is the mean
    squared difference within programs, D_e the mean squared difference over all ordered pairs of the 2N
    values, alpha = 1 - D_o / D_e."""
    pooled = np.concatenate([score, ceiling]).astype(np.float64)
    n = len(pooled)
    if len(score) < 2 or np.all(pooled == pooled[0]):
        return float("nan")
    observed = float(np.mean((score - ceiling) ** 2))
    expected = (2 * n * np.sum(pooled**2) - 2 * np.sum(pooled) ** 2) / (n * (n - 1))
    return 1 - observed / expected


def mcc_counts(truth: np.ndarray, predicted: np.ndarray) -> float:
    """Matthews correlation from the confusion counts (0 when a margin is empty, as sklearn returns)."""
    tp = float(np.sum(truth & predicted))
    tn = float(np.sum(~truth & ~predicted))
    fp = float(np.sum(~truth & predicted))
    fn = float(np.sum(truth & ~predicted))
    denominator = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    return (tp * tn - fp * fn) / np.sqrt(denominator) if denominator > 0 else 0.0


def emd(score: np.ndarray, ceiling: np.ndarray) -> float:
    from scipy import stats

    return float(stats.wasserstein_distance(score, ceiling)) if len(score) else float("nan")


def mcc_pair(score: np.ndarray, ceiling: np.ndarray, low: int, *, fast: bool = False) -> float:
    """MCC on the programs of ceilings ``low`` and ``low + 1``: truth ``low + 1``, prediction score >= low + 0.5
    (sklearn's matthews_corrcoef; ``fast``: the same from the confusion counts, for the bootstrap)."""
    from sklearn.metrics import matthews_corrcoef

    keep = (ceiling == low) | (ceiling == low + 1)
    truth, predicted = ceiling[keep] == low + 1, score[keep] >= low + 0.5
    if keep.sum() < 2 or _constant(truth):
        return float("nan")
    return mcc_counts(truth, predicted) if fast else float(matthews_corrcoef(truth, predicted))


def _statistics(score: np.ndarray, ceiling: np.ndarray, *, fast: bool = False) -> dict[tuple[str, str], float]:
    alpha = alpha_interval_two_coders if fast else alpha_interval
    out = {
        ("spearman_rho", "all"): spearman(score, ceiling),
        ("kendall_tau", "all"): kendall(score, ceiling),
        ("krippendorff_alpha", "all"): alpha(score, ceiling),
        ("emd", "all"): emd(score, ceiling),
    }
    for c in CEILINGS:
        at = ceiling == c
        out[("mean_score", str(c))] = float(score[at].mean()) if at.any() else float("nan")
    for low in CEILINGS[:-1]:
        out[("mcc", f"{low}-{low + 1}")] = mcc_pair(score, ceiling, low, fast=fast)
    return out


# elements of a (resamples x programs) weight block, about 8 MB of float64: the block's rows shrink as the
# programs grow, so memory stays bounded whatever n (the resamples do not depend on the block, bootstrap.py)
BLOCK_ELEMENTS = 1_000_000


class _Layout:
    """What the weighted replicates need of one (judge, answer kind) that does not depend on the weights: the
    programs sorted by score, the distinct scores, and where each ceiling's programs fall among them."""

    def __init__(self, score: np.ndarray, ceiling: np.ndarray) -> None:
        self.score, self.ceiling = score, ceiling
        self.values, self.x_code = np.unique(score, return_inverse=True)
        self.levels, self.y_code = np.unique(ceiling, return_inverse=True)
        self.by_x = np.argsort(self.x_code, kind="stable")
        self.x_starts = np.flatnonzero(np.r_[True, np.diff(self.x_code[self.by_x]) != 0])
        self.by_y = np.argsort(self.y_code, kind="stable")
        self.y_starts = np.flatnonzero(np.r_[True, np.diff(self.y_code[self.by_y]) != 0])
        # per ceiling level: its programs sorted by score, and the distinct-score column each run of them fills
        self.level_blocks = []
        for level in range(len(self.levels)):
            members = np.flatnonzero(self.y_code == level)
            members = members[np.argsort(self.x_code[members], kind="stable")]
            codes = self.x_code[members]
            starts = np.flatnonzero(np.r_[True, np.diff(codes) != 0])
            self.level_blocks.append((members, starts, codes[starts]))
        # the pooled values (scores and ceilings) in sorted order, for the Wasserstein distance's two CDFs
        pooled = np.concatenate([score, ceiling.astype(np.float64)])
        self.pooled_order = np.argsort(pooled, kind="stable")
        self.pooled_is_score = self.pooled_order < len(score)
        self.pooled_deltas = np.diff(pooled[self.pooled_order])

    def per_value(self, weights: np.ndarray) -> np.ndarray:
        """(B, distinct scores): the weight of each distinct score."""
        return np.add.reduceat(weights[:, self.by_x], self.x_starts, axis=1)

    def per_level(self, weights: np.ndarray) -> np.ndarray:
        """(B, ceiling levels): the weight of each ceiling."""
        return np.add.reduceat(weights[:, self.by_y], self.y_starts, axis=1)

    def level_per_value(self, weights: np.ndarray, level: int) -> np.ndarray:
        """(B, distinct scores): the weight of each distinct score among the programs of one ceiling level."""
        members, starts, columns = self.level_blocks[level]
        out = np.zeros((len(weights), len(self.values)))
        if len(members):
            out[:, columns] = np.add.reduceat(weights[:, members], starts, axis=1)
        return out


def _average_ranks(counts: np.ndarray) -> np.ndarray:
    """(B, K) weights of K sorted distinct values -> each value's average rank in its resample (ties share the
    mean of their ranks, as scipy.stats.rankdata)."""
    below = np.cumsum(counts, axis=1) - counts
    return below + (counts + 1) / 2


def _weighted_spearman(layout: _Layout, weights, total, x_counts, y_counts) -> np.ndarray:
    rx = _average_ranks(x_counts)[:, layout.x_code]
    ry = _average_ranks(y_counts)[:, layout.y_code]
    mx = (weights * rx).sum(axis=1, keepdims=True) / total[:, None]
    my = (weights * ry).sum(axis=1, keepdims=True) / total[:, None]
    dx, dy = rx - mx, ry - my
    rho = (weights * dx * dy).sum(axis=1) / np.sqrt((weights * dx**2).sum(axis=1) * (weights * dy**2).sum(axis=1))
    return rho


def _weighted_kendall(layout: _Layout, weights, total, x_counts, y_counts) -> np.ndarray:
    """tau-b of the resample: (concordant - discordant) / sqrt((n0 - x ties)(n0 - y ties)), the pairs counted
    with the programs' weights; a pair of copies of one program is tied in both, as in the resample."""
    below = np.zeros_like(x_counts)  # weight per distinct score of the programs of the lower ceilings
    difference = np.zeros(len(weights))
    for level in range(len(layout.levels)):
        here = layout.level_per_value(weights, level)
        cumulative = np.cumsum(below, axis=1)
        less = cumulative - below
        greater = cumulative[:, -1:] - cumulative
        difference += (here * (less - greater)).sum(axis=1)
        below += here
    pairs = total * (total - 1) / 2
    x_ties = (x_counts * (x_counts - 1) / 2).sum(axis=1)
    y_ties = (y_counts * (y_counts - 1) / 2).sum(axis=1)
    return difference / np.sqrt((pairs - x_ties) * (pairs - y_ties))


def _weighted_emd(layout: _Layout, weights, total) -> np.ndarray:
    """scipy.stats.wasserstein_distance of the resample's scores and ceilings: the integral of the absolute
    difference of their CDFs over the pooled sorted values."""
    n = len(layout.score)
    pooled = np.concatenate([weights, weights], axis=1)[:, layout.pooled_order] / total[:, None]
    u = np.cumsum(np.where(layout.pooled_is_score, pooled, 0.0), axis=1)[:, :-1]
    v = np.cumsum(np.where(layout.pooled_is_score, 0.0, pooled), axis=1)[:, :-1]
    return np.abs(u - v) @ layout.pooled_deltas if n else np.full(len(weights), np.nan)


def _weighted_alpha(layout: _Layout, weights, total, x_counts, y_counts) -> np.ndarray:
    """alpha_interval_two_coders of the resample: D_o the weighted mean squared difference within programs,
    D_e over all ordered pairs of the 2N pooled values."""
    score, ceiling = layout.score, layout.ceiling.astype(np.float64)
    center = (score.mean() + ceiling.mean()) / 2  # centered sums keep the small differences
    s, c = score - center, ceiling - center
    observed = weights @ ((score - ceiling) ** 2) / total
    pooled = 2 * total
    first, second = weights @ (s + c), weights @ (s**2 + c**2)
    expected = (2 * pooled * second - 2 * first**2) / (pooled * (pooled - 1))
    alpha = 1 - observed / expected
    # constant pooled values: one distinct score in the resample, equal to its one ceiling
    lowest_x, highest_x = _present_range(x_counts, layout.values)
    lowest_y, highest_y = _present_range(y_counts, layout.levels.astype(np.float64))
    constant = (lowest_x == highest_x) & (lowest_y == highest_y) & (lowest_x == lowest_y)
    return np.where(constant | (total < 2), np.nan, alpha)


def _present_range(counts: np.ndarray, values: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    present = counts > 0
    lowest = values[np.argmax(present, axis=1)]
    highest = values[len(values) - 1 - np.argmax(present[:, ::-1], axis=1)]
    return lowest, highest


def _weighted_mcc(layout: _Layout, weights: np.ndarray, low: int) -> np.ndarray:
    keep = (layout.ceiling == low) | (layout.ceiling == low + 1)
    truth, predicted = layout.ceiling[keep] == low + 1, layout.score[keep] >= low + 0.5
    w = weights[:, keep]
    tp, tn = w @ (truth & predicted), w @ (~truth & ~predicted)
    fp, fn = w @ (~truth & predicted), w @ (truth & ~predicted)
    denominator = (tp + fp) * (tp + fn) * (tn + fp) * (tn + fn)
    mcc = np.where(denominator > 0, (tp * tn - fp * fn) / np.sqrt(np.where(denominator > 0, denominator, 1)), 0.0)
    undefined = (w.sum(axis=1) < 2) | (tp + fn == 0) | (tn + fp == 0)  # fewer than 2 programs, or one class
    return np.where(undefined, np.nan, mcc)


def weighted_statistics(layout: _Layout, weights: np.ndarray) -> dict[tuple[str, str], np.ndarray]:
    """Every statistic of :func:`_statistics` for a block of resamples at once: ``weights`` (B, n) holds how
    many times each program was drawn, and row b's value equals ``_statistics`` of the programs repeated that
    many times (tested equal), without copying them."""
    total = weights.sum(axis=1)
    x_counts, y_counts = layout.per_value(weights), layout.per_level(weights)
    constant = ((x_counts > 0).sum(axis=1) < 2) | ((y_counts > 0).sum(axis=1) < 2)
    with np.errstate(divide="ignore", invalid="ignore"):
        out = {
            ("spearman_rho", "all"): np.where(
                constant, np.nan, _weighted_spearman(layout, weights, total, x_counts, y_counts)
            ),
            ("kendall_tau", "all"): np.where(
                constant, np.nan, _weighted_kendall(layout, weights, total, x_counts, y_counts)
            ),
            ("krippendorff_alpha", "all"): _weighted_alpha(layout, weights, total, x_counts, y_counts),
            ("emd", "all"): _weighted_emd(layout, weights, total),
        }
        for c in CEILINGS:
            at = layout.ceiling == c
            drawn = weights[:, at].sum(axis=1)
            out[("mean_score", str(c))] = np.where(drawn > 0, weights[:, at] @ layout.score[at] / drawn, np.nan)
        for low in CEILINGS[:-1]:
            out[("mcc", f"{low}-{low + 1}")] = _weighted_mcc(layout, weights, low)
    return out


def graded_metrics(scores: pl.DataFrame, *, n_resamples: int = 1000, seed: int = SEED) -> pl.DataFrame:
    """One row per (judge, answer kind, metric, subset) with its seed-clustered bootstrap interval (module
    docstring); ``note`` is ``constant`` when the judge gave every program one score (rho and tau undefined).

    The resamples are weight rows over the programs in blocks of at most ``BLOCK_ELEMENTS`` (no n x B index
    array, no copied programs): memory is O(n) per group and the time O(B n) plus the point estimates."""
    rows = []
    for (judge, answer), group in scores.sort("program_uid").group_by(["judge", "answer"], maintain_order=True):
        score = group["score"].to_numpy().astype(np.float64)
        ceiling = group["ceiling"].to_numpy().astype(np.int64)
        clusters = cluster_codes(group["seed_uid"].to_numpy())
        n_seeds = int(clusters.max()) + 1 if len(clusters) else 0
        point = _statistics(score, ceiling)
        replicates: dict[tuple[str, str], list[np.ndarray]] = {key: [] for key in point}
        layout = _Layout(score, ceiling)
        block = max(1, min(BLOCK, BLOCK_ELEMENTS // max(len(score), 1)))
        for counts in cluster_counts(n_seeds, n_resamples, seed, block=block):
            for key, values in weighted_statistics(layout, counts[:, clusters]).items():
                replicates[key].append(values)
        note = "constant" if _constant(score) else None
        for (metric, subset), value in point.items():
            drawn = replicates[(metric, subset)]
            lo, hi = interval(np.concatenate(drawn)) if drawn else (float("nan"), float("nan"))
            members = [int(x) for x in subset.split("-")] if subset != "all" else list(CEILINGS)
            n = int(np.isin(ceiling, members).sum())
            rows.append(
                {
                    "judge": judge,
                    "answer": answer,
                    "metric": metric,
                    "subset": subset,
                    "value": value,
                    "lo": lo,
                    "hi": hi,
                    "n": n,
                    "n_seeds": n_seeds,
                    "note": note if metric in ("spearman_rho", "kendall_tau") else None,
                }
            )
    return pl.DataFrame(rows, schema=METRIC_SCHEMA)


def table_iii(metrics: pl.DataFrame) -> pl.DataFrame:
    """AXIOM's Table III layout: one row per (judge, answer kind) with rho, tau, alpha (x100), EMD, mean score."""
    overall = metrics.filter(pl.col("subset") == "all").pivot(on="metric", index=["judge", "answer"], values="value")
    # the mean over the ceilings' means: the mean score of the graded set, which holds every ceiling equally
    means = (
        metrics.filter(pl.col("metric") == "mean_score")
        .group_by("judge", "answer")
        .agg(pl.col("value").mean().alias("mean"))
    )
    table = overall.join(means, on=["judge", "answer"], how="left")
    for column in ("spearman_rho", "kendall_tau", "krippendorff_alpha"):
        if column in table.columns:
            table = table.with_columns((pl.col(column) * 100).round(2))
    return table.sort("judge", "answer")
