"""Judges scored against the graded programs' ceilings (AXIOM's Table III and its MCC per subtask).

**Scores on the 0-5 scale.** Each judge's answer is mapped to AXIOM's scale, one *answer kind* each:

* ``score`` (judges that answer AXIOM's 0-5 score, asked in graded requests only): the score as answered;
* ``p_accept`` (every judge): ``5 * p_accept`` - the judge's probability that the program is accepted, read
  as the share of the full score it deserves;
* ``rubric`` (judges that return the rubric): ``5 * (mean(s_algo, s_robust) - 1) / 4`` - the two 1-5 rubric
  scores averaged and stretched linearly onto 0-5 (1 -> 0, 5 -> 5);
* ``similarity`` and ``similarity_other`` (the reference-based judges): ``5 * similarity`` - chrF++ / 100,
  CodeBLEU, or the normalised Levenshtein similarity, each in [0, 1] (:func:`reference_scores`), of the program
  against its seed (``similarity``) and against another accepted solution of the same problem and language
  (``similarity_other``; the one of least sha256 of the two uids, so the choice is stable; none: no row).

**Scopes.** ``full``: every graded ceiling, 0 included (AxiomBench-Full); ``rectifiable``: ceilings 1..5. A
graded set with no ceiling-0 program has only the ``rectifiable`` rows.

**Metrics** against the ceilings, per (judge, answer kind, scope):

* ``spearman_rho``, ``kendall_tau`` (tau-b; scipy);
* ``spearman_rho_within``: rho within problems, the mean of each problem's rho weighted by its programs (the
  problems where both the score and the ceiling vary);
* ``spearman_rho_partial``: rho controlled for the edit size (Levenshtein characters to the seed): the partial
  correlation of the three ranks, ``(r_sc - r_se r_ce) / sqrt((1 - r_se^2)(1 - r_ce^2))``, which is the
  correlation of the score's and the ceiling's rank residuals on the edit size's ranks;
* ``krippendorff_alpha``: interval level, the judge and the ceilings as two coders;
* ``emd``: ``scipy.stats.wasserstein_distance`` between the judge's score distribution and the ceilings';
* ``mean_score`` per ceiling (``subset`` = the ceiling);
* ``mcc`` per pair of adjacent ceilings (``subset`` ``k-k+1``): the programs of those two ceilings, the
  truth "ceiling k+1", the prediction "score >= k + 0.5" (the midpoint), sklearn's matthews_corrcoef.

**Undefined.** A statistic a constant input leaves undefined is null, with a ``note``: rho, tau and the partial
rho of a judge that gave every program one score, MCC where the prediction is one class on the pair's programs.

**Intervals and tests, clustered by problem.** The programs of one problem share its statement, its tests and
often its seeds, so the bootstrap draws problems (all their programs together; core/stats/bootstrap.py). With
few problems (the demo has 12) a percentile interval is too narrow, so the interval is ``value +- t(G - 1) *
SE``, SE the standard deviation of the problem-bootstrap replicates and G the number of problems (``df``); the
``p_value`` (H0: the statistic is 0; rho, tau, alpha, MCC) is from the same t, so it has no floor at 1 / (B + 1)
and a family of many strong effects can hold. ``holm_p`` is Holm's adjustment (statsmodels) over the table's
rows that test something: a defined value with SE > 0. Fewer than 2 problems: no interval, note says why.

Values are in [-1, 1] for rho, tau, alpha and MCC (AXIOM prints them x100), on the 0-5 scale for EMD and means.
"""

from __future__ import annotations

import hashlib
from collections.abc import Callable

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.stats.bootstrap import BLOCK, cluster_codes, cluster_counts

CEILINGS = (0, 1, 2, 3, 4, 5)
RECTIFIABLE = (1, 2, 3, 4, 5)
SCOPES = {"full": CEILINGS, "rectifiable": RECTIFIABLE}
REFERENCE_JUDGES = ("chrF++", "CodeBLEU", "edit-similarity")
TESTED = ("spearman_rho", "spearman_rho_within", "spearman_rho_partial", "kendall_tau", "krippendorff_alpha", "mcc")
ALPHA = 0.05
LEVEL = 0.95
METRIC_SCHEMA = {
    "judge": pl.String,
    "answer": pl.String,
    "scope": pl.String,  # full (ceilings 0..5) or rectifiable (1..5)
    "metric": pl.String,
    "subset": pl.String,
    "value": pl.Float64,  # null where undefined (note says why)
    "lo": pl.Float64,  # value -+ t(df) * se
    "hi": pl.Float64,
    "se": pl.Float64,  # the problem-bootstrap standard error
    "df": pl.Int64,  # problems - 1
    "p_value": pl.Float64,  # H0: 0, two-sided, t(df); null for EMD and means
    "holm_p": pl.Float64,  # Holm over the table's tests
    "n": pl.Int64,
    "n_problems": pl.Int64,
    "n_seeds": pl.Int64,
    "note": pl.String,
}
SCORE_SCHEMA = {
    "judge": pl.String,
    "answer": pl.String,
    "program_uid": pl.String,
    "seed_uid": pl.String,
    "problem_id": pl.String,
    "ceiling": pl.Int64,
    "edit_size": pl.Int64,  # Levenshtein characters to the seed (null: unknown)
    "score": pl.Float64,
}
PROGRAM_KEYS = ("program_uid", "seed_uid", "problem_id", "ceiling", "edit_size")


def with_edit_size(graded: pl.DataFrame, seeds: pl.DataFrame) -> pl.DataFrame:
    """``graded`` with ``edit_size``, the Levenshtein distance in characters of each program to its seed
    (rapidfuzz), computed where the programs do not carry it already."""
    from rapidfuzz.distance import Levenshtein

    if "edit_size" in graded.columns:
        return graded.with_columns(pl.col("edit_size").cast(pl.Int64))
    seed_code = dict(zip(seeds["seed_uid"].to_list(), seeds["code"].to_list()))
    sizes = [
        Levenshtein.distance(seed_code[s], c) if s in seed_code and c is not None else None
        for s, c in zip(graded["seed_uid"].to_list(), graded["code"].to_list())
    ]
    return graded.with_columns(pl.Series("edit_size", sizes, dtype=pl.Int64))


def _programs(graded: pl.DataFrame) -> pl.DataFrame:
    programs = graded.filter(pl.col("graded"))
    if "problem_id" not in programs.columns:
        programs = programs.with_columns(pl.lit(None, pl.String).alias("problem_id"))
    if "edit_size" not in programs.columns:
        programs = programs.with_columns(pl.lit(None, pl.Int64).alias("edit_size"))
    return programs.select(*PROGRAM_KEYS)


def edit_size_by_ceiling(graded: pl.DataFrame) -> pl.DataFrame:
    """One row per ceiling: graded programs, the median and quartiles of their edit size (characters to the seed),
    and in every row the Spearman rho of edit size with the ceiling over the graded set (``rho_all``). ``graded``:
    the programs (their ``graded`` rows), or a scores table (one row per program taken)."""
    programs = (_programs(graded) if "graded" in graded.columns else graded.unique("program_uid")).filter(
        pl.col("edit_size").is_not_null()
    )
    sizes, ceilings = programs["edit_size"].to_numpy(), programs["ceiling"].to_numpy()
    rho = spearman(sizes.astype(np.float64), ceilings) if len(programs) else float("nan")
    return (
        programs.group_by("ceiling")
        .agg(
            pl.len().alias("programs"),
            pl.col("edit_size").median().alias("median_edit_size"),
            pl.col("edit_size").quantile(0.25).alias("q1"),
            pl.col("edit_size").quantile(0.75).alias("q3"),
        )
        .with_columns(pl.lit(rho).alias("rho_all"))
        .sort("ceiling")
    )


def score_programs(graded: pl.DataFrame, seeds: pl.DataFrame, outputs: pl.DataFrame | None) -> pl.DataFrame:
    """Every judge's 0-5 score of every graded program (:data:`SCORE_SCHEMA`): the asked judges' answers
    (:func:`judge_scores`) and the reference-based judges (:func:`reference_scores`), with each program's edit size
    (:func:`with_edit_size`)."""
    if graded.is_empty() or not graded["graded"].any():
        return pl.DataFrame(schema=SCORE_SCHEMA)
    programs = with_edit_size(graded.filter(pl.col("graded")), seeds)
    return pl.concat([judge_scores(programs, outputs), reference_scores(programs, seeds)])


def judge_scores(graded: pl.DataFrame, outputs: pl.DataFrame | None) -> pl.DataFrame:
    """The judges' valid answers on the graded programs as 0-5 scores, one row per (judge, answer kind,
    program) (module docstring); ``outputs`` holds judge, attempt_uid (the program_uid), status, p_accept,
    s_algo, s_robust and, where judges answered it, score."""
    if outputs is None or outputs.is_empty():
        return pl.DataFrame(schema=SCORE_SCHEMA)
    valid = outputs.filter(pl.col("status") == "ok").rename({"attempt_uid": "program_uid"})
    valid = valid.join(_programs(graded), on="program_uid", how="inner")
    keys = ("judge", "program_uid", "seed_uid", "problem_id", "ceiling", "edit_size")

    def kind(name: str, present: pl.Expr, value: pl.Expr) -> pl.DataFrame:
        return valid.filter(present).select(*keys, pl.lit(name).alias("answer"), value.cast(pl.Float64).alias("score"))

    columns = set(valid.columns)
    kinds = [kind("p_accept", pl.col("p_accept").is_not_null(), 5 * pl.col("p_accept").cast(pl.Float64))]
    if {"s_algo", "s_robust"} <= columns:
        rubric = 5 * ((pl.col("s_algo") + pl.col("s_robust")).cast(pl.Float64) / 2 - 1) / 4
        kinds.append(kind("rubric", pl.col("s_algo").is_not_null() & pl.col("s_robust").is_not_null(), rubric))
    if "score" in columns:
        kinds.append(kind("score", pl.col("score").is_not_null(), pl.col("score")))
    return pl.concat(kinds).select(*SCORE_SCHEMA).cast(SCORE_SCHEMA)  # type: ignore[arg-type]


def other_references(graded: pl.DataFrame, seeds: pl.DataFrame) -> dict[str, str]:
    """For each graded program's seed, another accepted solution of the same problem and language (a usable
    seed): seed_uid -> the other's seed_uid, the one of least sha256(seed_uid, other); none where there is none."""
    usable = seeds.filter(pl.col("usable")) if "usable" in seeds.columns else seeds
    pool: dict[tuple[str, str], list[str]] = {}
    for row in usable.iter_rows(named=True):
        pool.setdefault((row["problem_id"], row["language"]), []).append(row["seed_uid"])
    chosen = {}
    for row in usable.filter(pl.col("seed_uid").is_in(graded["seed_uid"].unique().to_list())).iter_rows(named=True):
        others = [o for o in pool.get((row["problem_id"], row["language"]), []) if o != row["seed_uid"]]
        if others:
            key = row["seed_uid"]
            chosen[key] = min(others, key=lambda o: hashlib.sha256(f"{key}\x1f{o}".encode()).hexdigest())
    return chosen


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
    """The reference-based judges' 0-5 scores of the graded programs against their seed (answer ``similarity``)
    and against another accepted solution of the problem (``similarity_other``, :func:`other_references`)."""
    from cojudge_assets.core.dynamics.trajectories import codebleu_similarity

    seed_code = dict(zip(seeds["seed_uid"].to_list(), seeds["code"].to_list()))
    others = other_references(graded, seeds) if {"problem_id", "language"} <= set(seeds.columns) else {}
    measures: dict[str, Callable[[str, str, str], float | None]] = {
        "chrF++": lambda r, c, _: chrf_plus_plus(r, c),
        "CodeBLEU": lambda r, c, language: codebleu_similarity(r, c, language),
        "edit-similarity": lambda r, c, _: edit_similarity(r, c),
    }
    keys = _programs(graded).to_dicts()
    rows = []
    programs = graded.filter(pl.col("graded"))
    for key, code, language in zip(keys, programs["code"].to_list(), programs["language"].to_list()):
        references = {"similarity": seed_code[key["seed_uid"]]}
        if key["seed_uid"] in others:
            references["similarity_other"] = seed_code[others[key["seed_uid"]]]
        for answer, reference in references.items():
            for judge, measure in measures.items():
                value = measure(reference, code, language)
                if value is not None:
                    rows.append({"judge": judge, "answer": answer, **key, "score": 5 * value})
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
    if keep.sum() < 2 or _constant(truth) or _constant(predicted):  # one class on either side: undefined
        return float("nan")
    return mcc_counts(truth, predicted) if fast else float(matthews_corrcoef(truth, predicted))


def _statistics(
    score: np.ndarray, ceiling: np.ndarray, *, levels: tuple[int, ...] = RECTIFIABLE, fast: bool = False
) -> dict[tuple[str, str], float]:
    alpha = alpha_interval_two_coders if fast else alpha_interval
    out = {
        ("spearman_rho", "all"): spearman(score, ceiling),
        ("kendall_tau", "all"): kendall(score, ceiling),
        ("krippendorff_alpha", "all"): alpha(score, ceiling),
        ("emd", "all"): emd(score, ceiling),
    }
    for c in levels:
        at = ceiling == c
        out[("mean_score", str(c))] = float(score[at].mean()) if at.any() else float("nan")
    for low in levels[:-1]:
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
        # the distinct pooled values (scores and ceilings), for the Wasserstein distance's two CDFs: where each
        # falls among the distinct scores and among the ceiling levels (how many are <= it)
        grid = np.union1d(self.values, self.levels.astype(np.float64))
        self.grid_deltas = np.diff(grid)
        self.grid_x = np.searchsorted(self.values, grid, side="right")
        self.grid_y = np.searchsorted(self.levels.astype(np.float64), grid, side="right")

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


def _weighted_emd(layout: _Layout, total, x_counts, y_counts) -> np.ndarray:
    """scipy.stats.wasserstein_distance of the resample's scores and ceilings: the integral of the absolute
    difference of their CDFs, which are constant between consecutive distinct pooled values."""
    if not len(layout.score):
        return np.full(len(total), np.nan)
    zero = np.zeros((len(total), 1))
    below_x = np.concatenate([zero, np.cumsum(x_counts, axis=1)], axis=1)[:, layout.grid_x[:-1]]
    below_y = np.concatenate([zero, np.cumsum(y_counts, axis=1)], axis=1)[:, layout.grid_y[:-1]]
    return np.abs(below_x - below_y) @ layout.grid_deltas / total


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
    # fewer than 2 programs, one class of truth, or one class predicted
    undefined = (w.sum(axis=1) < 2) | (tp + fn == 0) | (tn + fp == 0) | (tp + fp == 0) | (tn + fn == 0)
    return np.where(undefined, np.nan, mcc)


def weighted_statistics(
    layout: _Layout, weights: np.ndarray, levels: tuple[int, ...] = RECTIFIABLE
) -> dict[tuple[str, str], np.ndarray]:
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
            ("emd", "all"): _weighted_emd(layout, total, x_counts, y_counts),
        }
        for c in levels:
            at = layout.ceiling == c
            drawn = weights[:, at].sum(axis=1)
            out[("mean_score", str(c))] = np.where(drawn > 0, weights[:, at] @ layout.score[at] / drawn, np.nan)
        for low in levels[:-1]:
            out[("mcc", f"{low}-{low + 1}")] = _weighted_mcc(layout, weights, low)
    return out


def partial_spearman(score: np.ndarray, ceiling: np.ndarray, covariate: np.ndarray) -> float:
    """Spearman's rho of ``score`` and ``ceiling`` controlled for ``covariate``: the Pearson correlation of the
    residuals of the score's and the ceiling's ranks regressed on the covariate's ranks (average ranks, scipy),
    in closed form ``(r_sc - r_sv r_cv) / sqrt((1 - r_sv^2)(1 - r_cv^2))``. NaN where an input is constant.

    A score that is the covariate itself keeps nothing once the covariate is controlled for: undefined (the
    planted judges of test_graded_metrics.py show the defined cases).

    >>> size = np.array([1.0, 2, 3, 4, 5, 6])
    >>> bool(np.isnan(partial_spearman(size, np.array([1, 1, 2, 2, 3, 3]), size)))
    True
    """
    from scipy import stats

    if _constant(score) or _constant(ceiling) or _constant(covariate):
        return float("nan")
    r = np.corrcoef(np.vstack([stats.rankdata(score), stats.rankdata(ceiling), stats.rankdata(covariate)]))
    return _partial(r[0, 1], r[0, 2], r[1, 2])


def _partial(r_sc, r_sv, r_cv):
    with np.errstate(divide="ignore", invalid="ignore"):
        return (r_sc - r_sv * r_cv) / np.sqrt((1 - r_sv**2) * (1 - r_cv**2))


def _per_problem_rho(score: np.ndarray, ceiling: np.ndarray, problems: np.ndarray, n_problems: int):
    """Each problem's Spearman rho (NaN where the score or the ceiling is constant within it) and its programs."""
    rho, size = np.full(n_problems, np.nan), np.bincount(problems, minlength=n_problems).astype(np.float64)
    for g in range(n_problems):
        at = problems == g
        rho[g] = spearman(score[at], ceiling[at])
    return rho, size


def _within(counts: np.ndarray, rho: np.ndarray, size: np.ndarray) -> np.ndarray:
    """The programs-weighted mean of the per-problem rho, for count rows (B, G) of drawn problems."""
    defined = np.isfinite(rho)
    weight = np.where(defined, size, 0.0)
    with np.errstate(divide="ignore", invalid="ignore"):
        return counts @ (weight * np.where(defined, rho, 0.0)) / (counts @ weight)


class _Ranked:
    """The distinct values of one column and where each row falls, for its average ranks in a weighted resample."""

    def __init__(self, values: np.ndarray) -> None:
        self.values, self.code = np.unique(values, return_inverse=True)
        self.order = np.argsort(self.code, kind="stable")
        self.starts = np.flatnonzero(np.r_[True, np.diff(self.code[self.order]) != 0])

    def ranks(self, weights: np.ndarray) -> np.ndarray:
        counts = np.add.reduceat(weights[:, self.order], self.starts, axis=1)
        return _average_ranks(counts)[:, self.code]


def _weighted_correlation(weights: np.ndarray, total: np.ndarray, a: np.ndarray, b: np.ndarray) -> np.ndarray:
    ma = (weights * a).sum(axis=1, keepdims=True) / total[:, None]
    mb = (weights * b).sum(axis=1, keepdims=True) / total[:, None]
    da, db = a - ma, b - mb
    with np.errstate(divide="ignore", invalid="ignore"):
        return (weights * da * db).sum(axis=1) / np.sqrt((weights * da**2).sum(axis=1) * (weights * db**2).sum(axis=1))


def _weighted_partial(ranked: tuple[_Ranked, _Ranked, _Ranked], weights: np.ndarray) -> np.ndarray:
    """:func:`partial_spearman` of each resample (weights (B, n)); NaN where an input is constant in it."""
    total = weights.sum(axis=1)
    rs, rc, rv = (r.ranks(weights) for r in ranked)
    return _partial(
        _weighted_correlation(weights, total, rs, rc),
        _weighted_correlation(weights, total, rs, rv),
        _weighted_correlation(weights, total, rc, rv),
    )


def _point(score, ceiling, edit, problems, n_problems, levels) -> dict[tuple[str, str], float]:
    point = _statistics(score, ceiling, levels=levels)
    rho, size = _per_problem_rho(score, ceiling, problems, n_problems)
    point[("spearman_rho_within", "all")] = float(_within(np.ones((1, n_problems)), rho, size)[0])
    point[("spearman_rho_partial", "all")] = (
        partial_spearman(score, ceiling, edit) if np.isfinite(edit).all() else float("nan")
    )
    return point


def _replicates(score, ceiling, edit, problems, n_problems, levels, n_resamples, seed) -> dict[tuple, np.ndarray]:
    """Every statistic of :func:`_point` over ``n_resamples`` problem-bootstrap resamples, in blocks of weight
    rows (no n x B array)."""
    layout = _Layout(score, ceiling)
    rho, size = _per_problem_rho(score, ceiling, problems, n_problems)
    ranked = (_Ranked(score), _Ranked(ceiling), _Ranked(edit)) if np.isfinite(edit).all() else None
    out: dict[tuple, list[np.ndarray]] = {}
    block = max(1, min(BLOCK, BLOCK_ELEMENTS // max(len(score), 1)))
    for counts in cluster_counts(n_problems, n_resamples, seed, block=block):
        weights = counts[:, problems]
        drawn = weighted_statistics(layout, weights, levels)
        drawn[("spearman_rho_within", "all")] = _within(counts, rho, size)
        drawn[("spearman_rho_partial", "all")] = (
            _weighted_partial(ranked, weights) if ranked else np.full(len(counts), np.nan)
        )
        for key, values in drawn.items():
            out.setdefault(key, []).append(values)
    return {key: np.concatenate(values) for key, values in out.items()}


def _note(metric: str, subset: str, value: float, score: np.ndarray, edit: np.ndarray, n_problems: int) -> str | None:
    notes = []
    if not np.isfinite(value):
        if metric == "mcc":
            low = subset.split("-")[0]
            notes.append(f"undefined: one ceiling absent, or the prediction (score >= {low}.5) is one class")
        elif metric == "spearman_rho_partial" and (not np.isfinite(edit).all() or _constant(edit)):
            notes.append("undefined: the edit size is unknown or constant")
        elif metric == "spearman_rho_within":
            notes.append("undefined: no problem where both the score and the ceiling vary")
        elif metric in ("spearman_rho", "kendall_tau", "spearman_rho_partial") and _constant(score):
            notes.append("undefined: constant score")
        elif metric not in ("mean_score",):
            notes.append("undefined")
    if n_problems < 2:
        notes.append("fewer than 2 problems: no interval")
    return "; ".join(notes) or None


def _rows_of(judge, answer, scope, group: pl.DataFrame, levels, n_resamples, seed) -> list[dict]:
    from scipy import stats

    score = group["score"].to_numpy().astype(np.float64)
    ceiling = group["ceiling"].to_numpy().astype(np.int64)
    edit = group["edit_size"].cast(pl.Float64).fill_null(float("nan")).to_numpy()
    # the problem is the cluster; a program with no problem_id is its own seed's cluster
    problems = cluster_codes(group["problem_id"].fill_null(group["seed_uid"]).to_numpy())
    n_problems = int(problems.max()) + 1 if len(problems) else 0
    n_seeds = group["seed_uid"].n_unique()
    point = _point(score, ceiling, edit, problems, n_problems, levels)
    drawn = _replicates(score, ceiling, edit, problems, n_problems, levels, n_resamples, seed)
    df = n_problems - 1
    t = float(stats.t.ppf((1 + LEVEL) / 2, df)) if df >= 1 else float("nan")
    rows = []
    for (metric, subset), value in point.items():
        finite = drawn[(metric, subset)][np.isfinite(drawn[(metric, subset)])]
        se = float(np.std(finite, ddof=1)) if len(finite) >= 2 and df >= 1 and np.isfinite(value) else float("nan")
        lo, hi = value - t * se, value + t * se
        if metric in TESTED:
            lo, hi = max(lo, -1.0), min(hi, 1.0)
        p = float(2 * stats.t.sf(abs(value) / se, df)) if metric in TESTED and se > 0 else float("nan")
        members = [int(x) for x in subset.split("-")] if subset != "all" else list(levels)
        rows.append(
            {
                "judge": judge,
                "answer": answer,
                "scope": scope,
                "metric": metric,
                "subset": subset,
                "value": value,
                "lo": lo,
                "hi": hi,
                "se": se,
                "df": df if df >= 1 else None,
                "p_value": p,
                "n": int(np.isin(ceiling, members).sum()),
                "n_problems": n_problems,
                "n_seeds": n_seeds,
                "note": _note(metric, subset, value, score, edit, n_problems),
            }
        )
    return rows


def holm(p_values: list[float], alpha: float = ALPHA) -> list[float]:
    """Holm-adjusted p-values (statsmodels ``multipletests``, ``method="holm"``)."""
    from statsmodels.stats.multitest import multipletests

    return [float(x) for x in multipletests(p_values, alpha=alpha, method="holm")[1]] if p_values else []


def graded_metrics(scores: pl.DataFrame, *, n_resamples: int = 1000, seed: int = SEED) -> pl.DataFrame:
    """One row per (judge, answer kind, scope, metric, subset) with its problem-clustered interval, p-value and
    Holm-adjusted p (module docstring). Scope ``full`` only when the graded set holds ceiling-0 programs.

    The resamples are weight rows over the programs in blocks of at most ``BLOCK_ELEMENTS`` (no n x B index
    array, no copied programs): memory is O(n) per group and the time O(B n) plus the point estimates."""
    missing = [pl.lit(None, SCORE_SCHEMA[name]).alias(name) for name in SCORE_SCHEMA if name not in scores.columns]
    scores = scores.with_columns(missing) if missing else scores
    rows: list[dict] = []
    for (judge, answer), group in scores.sort("program_uid").group_by(["judge", "answer"], maintain_order=True):
        for scope, levels in SCOPES.items():
            part = group.filter(pl.col("ceiling").is_in(levels))
            if part.is_empty() or (scope == "full" and not (part["ceiling"] == 0).any()):
                continue
            rows.extend(_rows_of(judge, answer, scope, part, levels, n_resamples, seed))
    tests = [i for i, r in enumerate(rows) if np.isfinite(r["p_value"])]
    for i, adjusted in zip(tests, holm([rows[i]["p_value"] for i in tests])):
        rows[i]["holm_p"] = adjusted
    table = pl.DataFrame(rows, schema=METRIC_SCHEMA)
    floats = [name for name, dtype in METRIC_SCHEMA.items() if dtype == pl.Float64]
    return table.with_columns(pl.col(floats).fill_nan(None))  # undefined is null, never NaN


def table_iii(metrics: pl.DataFrame) -> pl.DataFrame:
    """AXIOM's Table III layout: one row per (judge, answer kind, scope) with rho (pooled, within problem,
    controlled for edit size), tau, alpha (x100), EMD and the mean score; Full above Rectifiable."""
    keys = ["judge", "answer", "scope"]
    overall = metrics.filter(pl.col("subset") == "all").pivot(on="metric", index=keys, values="value")
    # the mean over the ceilings' means: the mean score of the graded set, which holds every ceiling equally
    means = metrics.filter(pl.col("metric") == "mean_score").group_by(keys).agg(pl.col("value").mean().alias("mean"))
    table = overall.join(means, on=keys, how="left")
    for column in ("spearman_rho", "spearman_rho_within", "spearman_rho_partial", "kendall_tau", "krippendorff_alpha"):
        if column in table.columns:
            table = table.with_columns((pl.col(column) * 100).round(2))
    return table.sort("judge", "answer", "scope")


def _cell(value, scale: float = 100, digits: int = 2) -> str:
    return "–" if value is None or not np.isfinite(value) else f"{value * scale:.{digits}f}"


def figures_markdown(metrics: pl.DataFrame, edit_sizes: pl.DataFrame) -> str:
    """The graded study's figures as docs/methodology.md quotes them, from the stored tables (bench/graded_study.py
    writes them; cojudge_tests/core/test_methodology_graded_figures.py asserts every line is in the docs): Table III
    per (judge, answer kind, scope) with rho's problem-clustered interval and Holm p, and the edit size per ceiling."""
    lines = [
        "| judge | answer | scope | rho [95% CI] | Holm p | rho within problem | rho controlled for edit size | tau "
        "| alpha | EMD | mean |",
        "|---|---|---|---|---|---|---|---|---|---|---|",
    ]
    overall = metrics.filter(pl.col("subset") == "all")
    means = (
        metrics.filter(pl.col("metric") == "mean_score")
        .group_by("judge", "answer", "scope")
        .agg(pl.col("value").mean())
    )
    for (judge, answer, scope), rows in overall.sort("judge", "answer", "scope").group_by(
        ["judge", "answer", "scope"], maintain_order=True
    ):
        by = {r["metric"]: r for r in rows.iter_rows(named=True)}
        rho = by["spearman_rho"]
        mean = means.filter((pl.col("judge") == judge) & (pl.col("answer") == answer) & (pl.col("scope") == scope))
        interval = f" [{_cell(rho['lo'], digits=1)}, {_cell(rho['hi'], digits=1)}]" if rho["lo"] is not None else ""
        holm = "–" if rho["holm_p"] is None else f"{rho['holm_p']:.2g}"
        lines.append(
            f"| {judge} | {answer} | {scope} | {_cell(rho['value'])}{interval} | {holm} "
            f"| {_cell(by['spearman_rho_within']['value'])} | {_cell(by['spearman_rho_partial']['value'])} "
            f"| {_cell(by['kendall_tau']['value'])} | {_cell(by['krippendorff_alpha']['value'])} "
            f"| {_cell(by['emd']['value'], 1, 3)} | {_cell(mean['value'][0] if len(mean) else None, 1, 2)} |"
        )
    lines += ["", "| ceiling | programs | median edit size (chars) | quartiles |", "|---|---|---|---|"]
    for r in edit_sizes.iter_rows(named=True):
        lines.append(f"| {r['ceiling']} | {r['programs']} | {r['median_edit_size']:g} | {r['q1']:g}-{r['q3']:g} |")
    if len(edit_sizes):
        lines.append(f"\nSpearman rho of edit size with the ceiling: {_cell(edit_sizes['rho_all'][0], 1, 3)}.")
    return "\n".join(lines)
