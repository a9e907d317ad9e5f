"""A pass rate from few labels and a judge: what each way of estimating it gives, over many repeated samples.

The question (issue 18): "I can afford to label n groups of attempts; the judge scores the rest: what pass rate
can I report, with what interval?". The corpus is a **finite population** of G groups (a group: a trajectory,
participant x problem, or the problem when the attempt has no participant); the truth is the pass rate of every
attempt of the cell (the full-label pass rate). For every judge x condition, label budget n < G and R
repetitions, n groups are drawn without replacement (every attempt of a drawn group labelled), seeded, and the
pass rate is estimated four ways. With g labelled groups of G, every interval carries the finite-population
correction ``1 - g/G`` on its variance (issue 26), and an interval is given only where ``MIN_GROUPS <= g < G``:
with fewer labelled groups no variance estimate is trustworthy, and with every group labelled the pass rate is
known (a budget reaching G is reported once, as "every group labelled", not as a coverage row).

* ``labels``: the labelled attempts alone: ``ybar = sum Y_g / sum M_g`` over the labelled groups (Y_g accepted
  attempts, M_g attempts of group g, n_att = sum M_g). Interval ``ybar +- t_{g-1} se`` with the cluster-robust
  CR1 variance and the correction: ``se^2 = (1 - g/G) g/(g-1) sum_g (Y_g - ybar M_g)^2 / n_att^2``.
* ``judge``: the judge alone: the share of every attempt with ``p >= t``, t the threshold selected on the
  labelled sample (the grid threshold of largest MCC, middle of ties, as ``metrics.select_threshold``). It is
  computed on every attempt, so with the correction its own sampling variance is 0: it has **no interval**; its
  error is its bias, which the bias and RMSE columns show.
* ``rogan_gladen``: ``(q + spec - 1) / (sens + spec - 1)`` clipped to [0, 1], q the judge's positive rate on
  every attempt, sensitivity and specificity of ``p >= t`` measured on the labelled sample, t selected there
  (Rogan and Gladen 1978). Interval: percentile bootstrap over the labelled groups (resampled with replacement,
  q and t fixed), its ends pulled towards the estimate by ``sqrt(1 - g/G)`` (the correction on the scale of a
  standard error). Undefined (counted in ``undefined``) when the labelled sample has no accepted or no rejected
  attempt, or ``sens + spec <= 1``; the share of bootstrap replicates undefined for the same reasons is
  ``boot_undefined``. Overall only: a participant's sample is too small for its own sensitivity and specificity,
  and borrowing the pooled ones was biased (issue 26), so there is no per-participant row.
* ``ppi``: PPI++ (Angelopoulos, Duchi and Zrnic 2023, arXiv:2311.01453) with power tuning, the point estimate of the
  form of ``ppi_py.ppi_mean_pointestimate(Y, Yhat, Yhat_unlabeled, lam=None)`` with the unlabelled set = the
  attempts not labelled: ``theta = lam fbar_u + ybar - lam fbar_l``, ``lam = clip(cov_l(y, f) / ((1 + n/N) var(f)),
  0, 1)``, but with the (co)variances in lam taken over group (trajectory) sums, not over attempts: equal to
  ppi_python's where every group is one attempt (1e-12 in the tests), different where trajectories are longer (by up
  to 0.045 on the demo, found by an independent review). In a finite population ``fbar_u = (F - n fbar_l) / N``, so
  theta is the regression (difference) estimator ``ybar - c (fbar_l - fbar)`` with ``c = lam (n + N) / N`` and fbar
  the judge's mean over every attempt. Its interval is therefore the design-based one of that estimator, the same
  small-sample treatment as labels alone: ``theta +- t_{g-1} se``, ``se^2 = (1 - g/G) g/(g-2) sum_g (E_g - ebar
  M_g)^2 / n_att^2`` with ``e = y - c f`` (CR1 with the slope c counted as a second fitted parameter: ``g/(g-1) *
  (g-1)/(g-2)``). ppi_python's own interval (``ppi_mean_ci``: a z interval of ``var_l(y - lam f)/n + lam^2
  var_u(f)/N``, made for an unlabelled sample drawn apart from the labelled one) is :func:`ppi_mean_interval` with
  ``finite=False``, equal to ppi_python to 1e-9 in the tests; over few groups it covered too little (0.92 at G = 25,
  issue 26; docs/methodology.md compares both and a cluster bootstrap).

Per repetition the estimate and its interval; per method and n: the mean labelled groups and attempts, mean
estimate, bias, spread (sd) and RMSE of the estimates, empirical coverage with its Monte Carlo standard error
``sqrt(c (1 - c) / reps)``, mean width; ``reps`` the repetitions with an interval, ``no_interval`` those with an
estimate but fewer than MIN_GROUPS labelled groups, ``undefined`` those without an estimate, ``all_labelled``
those where every group of the stratum was labelled (a participant's). Per participant (where the corpus has two
or more with two groups or more): the same draws restricted to the participant's groups (labels, judge, ppi).

Labels needed for equal precision (:func:`labels_saved`): from the achieved precision, the mean squared error of
the estimates across repetitions. Under sampling without replacement an estimator's MSE at g groups is about
``(1/g - 1/G) V``; so a judge-assisted method whose MSE at n is ``MSE`` reaches labels alone's ``MSE_labels(n)``
with ``groups_needed = 1 / ((1/n - 1/G) MSE_labels / MSE + 1/G)`` groups; ``labels_saved = n -
groups_needed`` (groups) and the same in attempts (groups times the mean attempts per labelled group). Shown only
where the method's coverage is within Monte Carlo error (two standard errors at the nominal level) of nominal.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.frames import TableReader, as_reader
from cojudge_assets.core.stats.bootstrap import cluster_codes
from cojudge_assets.core.stats.metrics import THRESHOLD_GRID, _mcc

METHODS = ("labels", "judge", "rogan_gladen", "ppi")
JUDGE_ASSISTED = ("rogan_gladen", "ppi")
# PPI++ intervals compared in docs/methodology.md (bench/ppi_intervals.py): ppi_python's z interval without the
# correction (CR0), and a cluster bootstrap with the correction; ``ppi`` is the design-based t interval
PPI_VARIANTS = ("ppi_z_cr0", "ppi_bootstrap")
PER_PARTICIPANT = ("labels", "judge", "ppi")
MIN_GROUPS = 10  # fewer labelled groups than this: no interval
TIE = 1e-12  # an interval end within this of the truth covers it (sums in another order differ by ulps)
EVERY_GROUP = "every group labelled: the pass rate is known"
JUDGE_NOTE = "no interval: the judge's rate on every attempt has no sampling error; its error is the bias"
CHUNK = 50  # repetitions per bootstrap block (memory: bootstrap x CHUNK x n, as int64 draws and float32 counts)
FRAME_COLUMNS = ("judge", "condition", "unit", "group", "participant", "y", "p")
ESTIMATION_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "participant": pl.String,  # null: every attempt of the cell
        "method": pl.String,
        "n": pl.Int64,  # label budget, in groups
        "groups": pl.Float64,  # mean labelled groups of the stratum
        "groups_total": pl.Int64,  # G: the stratum's groups
        "labels": pl.Float64,  # mean labelled attempts
        "truth": pl.Float64,
        "estimate": pl.Float64,
        "bias": pl.Float64,
        "sd": pl.Float64,  # spread of the estimates across repetitions
        "rmse": pl.Float64,
        "coverage": pl.Float64,
        "coverage_se": pl.Float64,  # Monte Carlo standard error of the coverage
        "width": pl.Float64,
        "reps": pl.Int64,  # repetitions with an interval (coverage and width are over these)
        "no_interval": pl.Int64,  # an estimate, but fewer than MIN_GROUPS labelled groups
        "undefined": pl.Int64,  # no estimate
        "all_labelled": pl.Int64,  # every group of the stratum labelled: not counted above
        "boot_undefined": pl.Float64,  # Rogan-Gladen: share of bootstrap replicates undefined
        "note": pl.String,
    }
)


@dataclass(frozen=True)
class EstimationConfig:
    budgets: tuple[int, ...] = (25, 50, 100, 200)
    repetitions: int = 1000
    bootstrap: int = 200  # bootstrap resamples per repetition (Rogan-Gladen; PPI++'s bootstrap variant)
    alpha: float = 0.05
    seed: int = SEED
    min_groups: int = MIN_GROUPS
    variants: bool = False  # also PPI_VARIANTS (the comparison of PPI++ intervals)

    def __post_init__(self):
        if not self.budgets or any(int(b) != b or b < 2 for b in self.budgets):
            raise ValueError(f"budgets: expected a non-empty list of integers >= 2, got {self.budgets!r}")
        for name in ("repetitions", "bootstrap"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected a positive integer, got {getattr(self, name)!r}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha: expected a level in (0, 1), got {self.alpha!r}")
        if self.min_groups < 2:
            raise ValueError(f"min_groups: expected an integer >= 2, got {self.min_groups!r}")


# -- the frame ---------------------------------------------------------------------------------------------


GROUPINGS = ("trajectory", "attempt")
# what estimation_frame reads of the predictions (the asset loads these columns only)
PREDICTION_COLUMNS = ("attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id")


def estimation_frame(predictions: pl.DataFrame, *, grouping: str = "trajectory") -> pl.DataFrame:
    """One row per answered attempt x judge x condition: unit (attempt_uid), group, participant, y, p (p_accept).

    ``grouping``: ``trajectory`` (the default: the sampling group is the trajectory, or the problem when the
    attempt has no participant) or ``attempt`` (every attempt a group of its own: labels drawn attempt by attempt,
    for a corpus whose trajectories are built so that every one has the same pass rate, e.g. ITSP's pairs of one
    accepted and one rejected attempt, where whole-trajectory samples know the pass rate exactly)."""
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping: expected one of {GROUPINGS}, got {grouping!r}")
    missing = set(PREDICTION_COLUMNS) - set(predictions.columns)
    if missing:
        raise ValueError(f"predictions: expected columns {sorted(PREDICTION_COLUMNS)}; missing {sorted(missing)}")
    answered = pl.col("p_accept").is_not_null() & pl.col("p_accept").is_not_nan()
    # no copy of the predictions when every row is answered (the usual case): the frame shares their columns
    rows = predictions if predictions.select(answered.all()).item() in (True, None) else predictions.filter(answered)
    group = (
        pl.col("attempt_uid").cast(pl.String)
        if grouping == "attempt"
        else pl.when(pl.col("participant").is_null())
        .then(pl.lit("problem\x1f") + pl.col("problem_id").cast(pl.String))
        .otherwise(pl.col("participant").cast(pl.String) + pl.lit("\x1f") + pl.col("problem_id").cast(pl.String))
    )
    return rows.select(
        "judge",
        "condition",
        pl.col("attempt_uid").alias("unit"),
        group.alias("group"),
        pl.col("participant").cast(pl.String),
        pl.col("y").cast(pl.Int64),
        pl.col("p_accept").cast(pl.Float64).alias("p"),
    )


# -- vectorised estimators over repetitions -----------------------------------------------------------------


@dataclass
class _Groups:
    """Per-group sums of one cell, the judge's positives per grid threshold, and each group's stratum (a
    participant's index, -1 for none): the strata are every group, then one per participant."""

    m: np.ndarray  # attempts
    y: np.ndarray  # accepted attempts
    f: np.ndarray  # sum of p
    d: np.ndarray  # (G, T) attempts with p >= THRESHOLD_GRID[t] (float32: whole counts, exact below 2^24)
    yd: np.ndarray  # (G, T) accepted attempts with p >= THRESHOLD_GRID[t] (float32, summed as float64)
    stratum: np.ndarray  # (G,) int: the group's participant stratum 0..K-2, -1 outside every one
    n_strata: int  # K: every group, then the participants

    @classmethod
    def build(cls, y, p, groups, strata=None) -> _Groups:
        codes = cluster_codes(np.asarray(groups))
        n_groups = int(codes.max()) + 1

        def total(values):
            return np.bincount(codes, weights=np.asarray(values, dtype=float), minlength=n_groups)

        # one threshold at a time: memory O(n), not (n, T); the counts are whole numbers, so exact in any order
        d = np.empty((n_groups, len(THRESHOLD_GRID)), dtype=np.float32)
        yd = np.empty_like(d)
        for t, threshold in enumerate(THRESHOLD_GRID):
            above = p >= threshold
            d[:, t] = np.bincount(codes[above], minlength=n_groups)
            yd[:, t] = np.bincount(codes[above], weights=y[above], minlength=n_groups)
        stratum = np.full(n_groups, -1, dtype=np.int64)
        n_strata = 1
        if strata is not None:
            strata = np.asarray(strata, dtype=object)
            first = np.zeros(n_groups, dtype=np.int64)
            first[codes[::-1]] = np.arange(len(codes))[::-1]  # a group's first attempt gives its stratum
            of_group = strata[first]
            labels = sorted({v for v in of_group.tolist() if v is not None})
            index = {v: i for i, v in enumerate(labels)}
            # an attempt outside every stratum counts only in the first (every group)
            stratum = np.array([index.get(v, -1) if v is not None else -1 for v in of_group.tolist()], dtype=np.int64)
            n_strata += len(labels)
        return cls(total(np.ones(len(y))), total(y), total(p), d, yd, stratum, n_strata)

    def per_stratum(self, values: np.ndarray) -> np.ndarray:
        """``values`` (G,) summed per stratum: (K,), the first every group."""
        inside = self.stratum >= 0
        part = np.bincount(self.stratum[inside], weights=values[inside], minlength=self.n_strata - 1)
        return np.concatenate([[values.sum(dtype=np.float64)], part])


# products of the per-group sums that the estimators need: one (R, G) x (G, len) product gives them all
_PRODUCTS = {
    "m": ("m",),
    "y": ("y",),
    "f": ("f",),
    "yy": ("y", "y"),
    "ym": ("y", "m"),
    "mm": ("m", "m"),
    "yf": ("y", "f"),
    "fm": ("f", "m"),
    "ff": ("f", "f"),
}


def _products(g: _Groups) -> np.ndarray:
    """(P, G): every product of :data:`_PRODUCTS` per group."""
    return np.stack([np.prod([getattr(g, f) for f in factors], axis=0) for factors in _PRODUCTS.values()])


def _sums_every(values: np.ndarray, chosen: np.ndarray) -> dict[str, np.ndarray]:
    """The sums over each repetition's chosen groups (``chosen`` (R, n) group indices) of every product: (R, 1)."""
    selected = values[:, chosen].sum(axis=-1)[:, :, None]  # (P, R, 1)
    return {name: selected[i] for i, name in enumerate(_PRODUCTS)}


def _sums_block(values: np.ndarray, stratum: np.ndarray, chosen: np.ndarray, start: int, stop: int) -> np.ndarray:
    """``values`` (Q, G) summed over each repetition's chosen groups (``chosen`` (R, n)) that lie in the
    participant strata ``start..stop-1``, per stratum: (Q, R, stop - start). Memory R x (stop - start) per row of
    values, whatever the number of participants."""
    reps, width = chosen.shape[0], stop - start
    local = stratum[chosen] - start  # (R, n)
    keep = (local >= 0) & (local < width)
    cell = (np.arange(reps)[:, None] * width + local)[keep]
    return np.stack(
        [np.bincount(cell, weights=row[chosen][keep], minlength=reps * width).reshape(reps, width) for row in values]
    )


def _centred(sums: dict, a: str, b: str, abar, bbar):
    """``sum_g (A_g - abar M_g)(B_g - bbar M_g)`` from the sums of products."""
    ab = sums["".join(sorted((a, b), key="yfm".index))] if a != b else sums[a + b]
    return ab - bbar * sums[a + "m"] - abar * sums[b + "m"] + abar * bbar * sums["mm"]


def _divide(a, b):
    with np.errstate(divide="ignore", invalid="ignore"):
        return np.where(b > 0, a / np.where(b > 0, b, 1.0), np.nan)


def _percentile_interval(values: np.ndarray, alpha: float) -> tuple[np.ndarray, np.ndarray]:
    """Percentile interval over axis 1 ignoring NaN (numpy's linear rule), NaN where fewer than 2 values."""
    ordered = np.sort(values, axis=1)  # NaN sort last
    count = np.sum(~np.isnan(values), axis=1)

    def at(q):
        pos = np.clip((count - 1) * q, 0, None)
        low = np.floor(pos).astype(np.int64)
        high = np.minimum(low + 1, np.maximum(count - 1, 0))
        frac = pos - low
        a = np.take_along_axis(ordered, low[:, None], axis=1)[:, 0]
        b = np.take_along_axis(ordered, high[:, None], axis=1)[:, 0]
        return np.where(count >= 2, a + frac * (b - a), np.nan)

    return at(alpha / 2), at(1 - alpha / 2)


def _t_quantile(groups: np.ndarray, alpha: float) -> np.ndarray:
    from scipy import stats

    return stats.t.ppf(1 - alpha / 2, np.maximum(groups - 1, 1))


def _fpc(groups: np.ndarray, total: np.ndarray) -> np.ndarray:
    """The finite-population correction ``1 - g/G`` (on a variance)."""
    return np.clip(1.0 - groups / total, 0.0, 1.0)


def _ppi(lab: dict, tot: dict, groups_l, groups_t, *, alpha: float, finite: bool) -> tuple:
    """PPI++ (estimate, lo, hi) per row and stratum from the sums of the labelled groups and of every group.

    ``finite``: the design-based t interval with the correction (the study's); else ppi_python's z interval."""
    from scipy import stats

    unl = {name: tot[name] - lab[name] for name in lab}
    n, n_u = lab["m"], unl["m"]  # labelled and unlabelled attempts
    ybar = _divide(lab["y"], n)
    yb, fl, fu = np.nan_to_num(ybar), np.nan_to_num(_divide(lab["f"], n)), np.nan_to_num(_divide(unl["f"], n_u))
    n_safe, nu_safe = np.where(n > 0, n, 1), np.where(n_u > 0, n_u, 1)
    syy = _centred(lab, "y", "y", yb, yb)
    syf = _centred(lab, "y", "f", yb, fl)
    sff = _centred(lab, "f", "f", fl, fl)
    fbar_all = tot["f"] / tot["m"]
    var_all = _centred(tot, "f", "f", fbar_all, fbar_all) / np.maximum(tot["m"] - 1, 1)  # (K,)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where((n_u > 0) & (var_all > 0), (syf / n_safe) / ((1 + n / nu_safe) * var_all), 0.0)
    lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
    theta = lam * fu + yb - lam * fl
    est = np.where((groups_l >= 2) & (n_u > 0), theta, np.nan)
    if finite:
        c = lam * (n + n_u) / nu_safe  # theta = ybar - c (fbar_l - fbar): the regression estimator
        see = syy - 2 * c * syf + c**2 * sff
        # CR1 with two fitted parameters (the mean and the slope c): g/(g-1) * (g-1)/(g-2); t on g-1 df
        small = _divide(groups_l, groups_l - 2)
        se = np.sqrt(np.maximum(see, 0) * small * _fpc(groups_l, groups_t)) / n_safe
        crit = _t_quantile(groups_l, alpha)
    else:
        var_rect = (syy - 2 * lam * syf + lam**2 * sff) / n_safe**2
        var_imp = lam**2 * _centred(unl, "f", "f", fu, fu) / nu_safe**2
        se = np.sqrt(np.maximum(var_rect, 0) + np.maximum(var_imp, 0))
        crit = np.full_like(se, stats.norm.ppf(1 - alpha / 2))
    return est, est - crit * se, est + crit * se


def _labels_alone(lab: dict, groups_l, groups_t, *, alpha: float) -> tuple:
    n = lab["m"]
    ybar = _divide(lab["y"], n)
    yb = np.nan_to_num(ybar)
    syy = _centred(lab, "y", "y", yb, yb)
    factor = _divide(groups_l, groups_l - 1) * _fpc(groups_l, groups_t)
    se = np.sqrt(np.maximum(syy, 0) * factor) / np.where(n > 0, n, 1)
    est = np.where(groups_l >= 2, ybar, np.nan)
    crit = _t_quantile(groups_l, alpha)
    return est, est - crit * se, est + crit * se


def _thresholds(g: _Groups, chosen: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Per repetition, the grid index of the threshold of largest MCC on the labelled attempts (the middle one
    among ties, as ``metrics.select_threshold``), and whether one exists (both classes labelled). ``chosen``:
    (R, n) the repetitions' groups. The counts are whole numbers: exact in any order of summation."""
    tp = np.stack([g.yd[row].sum(axis=0, dtype=np.float64) for row in chosen])  # (R, T)
    positive = np.stack([g.d[row].sum(axis=0, dtype=np.float64) for row in chosen])
    accepted = g.y[chosen].sum(axis=1)[:, None]
    attempts = g.m[chosen].sum(axis=1)[:, None]
    fp = positive - tp
    score = _mcc(tp, fp, attempts - accepted - fp, accepted - tp)
    ties = score >= score.max(axis=1, keepdims=True) - 1e-12
    middle = ties.sum(axis=1) // 2
    index = np.argmax(np.cumsum(ties, axis=1) > middle[:, None], axis=1)
    defined = (accepted[:, 0] > 0) & (accepted[:, 0] < attempts[:, 0])
    return index, defined


def _judge_alone(rate: np.ndarray, index: np.ndarray, defined: np.ndarray) -> tuple:
    """The judge's positive rate on every attempt of each stratum (``rate`` (K, T): its share of attempts with p
    at or above each grid threshold) at each repetition's threshold; no interval."""
    est = np.where(defined[:, None], rate[:, index].T, np.nan)  # (R, K)
    none = np.full_like(est, np.nan)
    return est, none, none


def _boot_counts(rng: np.random.Generator, resamples: int, reps: int, budget: int) -> np.ndarray:
    """(reps, B, n) float32 counts: for each repetition, ``resamples`` draws of its n groups with replacement."""
    rows = resamples * reps
    picks = rng.integers(0, budget, (rows, budget), dtype=np.int64)
    picks += np.arange(rows, dtype=np.int64)[:, None] * budget
    counts = np.bincount(picks.ravel(), minlength=rows * budget).astype(np.float32)
    return counts.reshape(reps, resamples, budget)


def _rogan_gladen(g: _Groups, chosen, index, defined, *, alpha: float, resamples: int, rng) -> tuple:
    """Overall Rogan-Gladen (estimate, lo, hi, share of bootstrap replicates undefined), each (R, 1). ``chosen``:
    (R, n) each repetition's groups in index order."""
    reps, budget = chosen.shape
    at = index[:, None]
    yd, d = g.yd[chosen, at].astype(np.float64), g.d[chosen, at].astype(np.float64)
    y, m = g.y[chosen], g.m[chosen]
    stat = np.stack([yd, y, m - y - d + yd, m - y], axis=-1)  # (R, n, 4): TP, P, TN, N per group
    q = (g.d.sum(axis=0, dtype=np.float64) / g.m.sum())[index]  # (R,)

    def rg(sums, q):
        sens, spec = _divide(sums[..., 0], sums[..., 1]), _divide(sums[..., 2], sums[..., 3])
        denom = sens + spec - 1
        with np.errstate(divide="ignore", invalid="ignore"):
            value = np.where(denom > 0, (q + spec - 1) / np.where(denom > 0, denom, 1.0), np.nan)
        return np.clip(value, 0.0, 1.0)

    point = np.where(defined, rg(stat.sum(axis=1), q), np.nan)
    lo, hi, dropped = np.full(reps, np.nan), np.full(reps, np.nan), np.full(reps, np.nan)
    for start in range(0, reps, CHUNK):
        part = slice(start, min(start + CHUNK, reps))
        counts = _boot_counts(rng, resamples, part.stop - part.start, budget)  # (r, B, n)
        sums = np.matmul(counts, stat[part].astype(np.float32)).astype(float)  # (r, B, 4); whole counts: exact
        boot = rg(sums, q[part, None])  # (r, B)
        dropped[part] = np.isnan(boot).mean(axis=1)
        lo[part], hi[part] = _percentile_interval(boot, alpha)
    shrink = np.sqrt(_fpc(np.full(reps, float(budget)), np.full(reps, float(len(g.m)))))
    lo, hi = point + shrink * (lo - point), point + shrink * (hi - point)
    return point[:, None], lo[:, None], hi[:, None], np.where(defined, dropped, np.nan)[:, None]


def _ppi_bootstrap(g: _Groups, chosen, *, alpha: float, resamples: int, rng) -> tuple:
    """PPI++ overall with a percentile cluster-bootstrap interval (lam re-tuned in every resample), its ends
    pulled towards the estimate by sqrt(1 - g/G): the comparison variant."""
    reps, budget = chosen.shape
    names = list(_PRODUCTS)
    values = np.stack([np.prod([getattr(g, f) for f in _PRODUCTS[n]], axis=0) for n in names], axis=-1)  # (G, P)
    stat = values[chosen]  # (R, n, P)
    tot = {n: np.array([values[:, i].sum()]) for i, n in enumerate(names)}
    groups_t = np.array([float(len(g.m))])

    def estimate(sums):  # sums (..., P) -> PPI++ estimate (...)
        lab = {n: sums[..., i, None] for i, n in enumerate(names)}
        est, _, _ = _ppi(lab, tot, np.full(sums.shape[:-1] + (1,), float(budget)), groups_t, alpha=alpha, finite=True)
        return est[..., 0]

    point = estimate(stat.sum(axis=1))
    lo, hi = np.full(reps, np.nan), np.full(reps, np.nan)
    for start in range(0, reps, CHUNK):
        part = slice(start, min(start + CHUNK, reps))
        counts = _boot_counts(rng, resamples, part.stop - part.start, budget).astype(float)
        lo[part], hi[part] = _percentile_interval(estimate(np.matmul(counts, stat[part])), alpha)
    shrink = np.sqrt(1 - budget / len(g.m))
    return point[:, None], (point + shrink * (lo - point))[:, None], (point + shrink * (hi - point))[:, None]


SELECTION_KEYS = 1 << 20  # uniform keys drawn at a time (rows of G): memory about 16 bytes a key
STRATA_BLOCK = 64  # participants summarised at a time (memory: repetitions x STRATA_BLOCK per array)


def _chosen(n_groups: int, budget: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """(R, budget) group indices, each row ``budget`` groups drawn without replacement, in increasing order. The
    uniform keys are drawn a block of rows at a time from one stream (the same keys as one (R, G) draw)."""
    out = np.empty((repetitions, budget), dtype=np.int64)
    block = max(1, SELECTION_KEYS // n_groups)
    for start in range(0, repetitions, block):
        rows = min(block, repetitions - start)
        keys = rng.random((rows, n_groups))
        out[start : start + rows] = np.sort(np.argpartition(keys, budget - 1, axis=1)[:, :budget], axis=1)
    return out


def selections(n_groups: int, budget: int, *, repetitions: int, seed: int = SEED) -> np.ndarray:
    """The labelled draws the study makes at one budget: (R, G) 0/1 over the cell's groups in sorted order."""
    chosen = _chosen(n_groups, budget, repetitions, np.random.default_rng((seed, budget)))
    s = np.zeros((repetitions, n_groups))
    np.put_along_axis(s, chosen, 1.0, axis=1)
    return s


def _check_cell(y, p, groups) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    y = np.asarray(y, dtype=float)
    p = np.asarray(p, dtype=float)
    groups = np.asarray(groups)
    if y.ndim != 1 or p.shape != y.shape or groups.shape != y.shape:
        raise ValueError(
            f"y, p and groups: expected 1-D arrays of one length, got {y.shape}, {p.shape}, {groups.shape}"
        )
    if not np.isin(y, (0.0, 1.0)).all():
        raise ValueError("y: expected labels 0 or 1")
    if np.isnan(p).any() or (p < 0).any() or (p > 1).any():
        raise ValueError("p: expected probabilities in [0, 1], without NaN")
    return y, p, groups


def simulate_cell(y, p, groups, *, participants=None, config: EstimationConfig = EstimationConfig()) -> pl.DataFrame:
    """The repeated-sampling study of one judge x condition: one row per participant (null: all) x method x n.

    ``y`` 0/1 labels, ``p`` the judge's probabilities, ``groups`` the sampling group of each attempt,
    ``participants`` (optional) a participant per attempt. A budget of G groups or more gives one row, method
    ``labels``, n = G, note "every group labelled"."""
    y, p, groups = _check_cell(y, p, groups)
    g = _Groups.build(y, p, groups, participants)
    strata_names = [None]
    if participants is not None:
        strata_names += sorted({v for v in np.asarray(participants, dtype=object).tolist() if v is not None})
    n_groups = len(g.m)
    groups_t = g.per_stratum(np.ones(n_groups))
    attempts_t = g.per_stratum(g.m)
    truth = g.per_stratum(g.y) / attempts_t
    rate = np.stack([g.per_stratum(g.d[:, t]) for t in range(g.d.shape[1])], axis=1) / attempts_t[:, None]  # (K, T)
    values = _products(g)  # (P, G)
    tot_all = np.stack([g.per_stratum(v) for v in values])  # (P, K)
    counted = np.vstack([values, np.ones(n_groups)])  # the products and the group count, summed per stratum
    methods = METHODS + (PPI_VARIANTS if config.variants else ())
    rows = []
    for budget in sorted({min(int(b), n_groups) for b in config.budgets}):
        if budget >= n_groups:
            rows.append(_every_group(truth[0], n_groups, float(g.m.sum())))
            continue
        rng = np.random.default_rng((config.seed, budget))
        chosen = _chosen(n_groups, budget, config.repetitions, rng)  # (R, budget)
        boot_rng = np.random.default_rng((config.seed, budget, 1))
        index, defined = _thresholds(g, chosen)
        by_method: dict[str, list[dict]] = {method: [] for method in methods}

        def summarise(results, lab, groups_l, strata: slice, dropped=None, by_method=by_method, budget=budget):
            for method, (est, lo, hi) in results.items():
                by_method[method] += _summaries(
                    method,
                    budget,
                    est,
                    lo,
                    hi,
                    truth[strata],
                    groups_l,
                    groups_t[strata],
                    lab["m"],
                    strata_names[strata],
                    min_groups=config.min_groups,
                    dropped=dropped if method == "rogan_gladen" else None,
                )

        # every group of the cell: each method
        lab = _sums_every(values, chosen)
        tot = {name: tot_all[i][:1] for i, name in enumerate(_PRODUCTS)}
        groups_l = np.full((config.repetitions, 1), float(budget))
        results = {
            "labels": _labels_alone(lab, groups_l, groups_t[:1], alpha=config.alpha),
            "judge": _judge_alone(rate[:1], index, defined),
            "ppi": _ppi(lab, tot, groups_l, groups_t[:1], alpha=config.alpha, finite=True),
        }
        est, lo, hi, dropped = _rogan_gladen(
            g, chosen, index, defined, alpha=config.alpha, resamples=config.bootstrap, rng=boot_rng
        )
        results["rogan_gladen"] = (est, lo, hi)
        if config.variants:
            results["ppi_z_cr0"] = _ppi(lab, tot, groups_l, groups_t[:1], alpha=config.alpha, finite=False)
            results["ppi_bootstrap"] = _ppi_bootstrap(
                g, chosen, alpha=config.alpha, resamples=config.bootstrap, rng=boot_rng
            )
        summarise(results, lab, groups_l, slice(0, 1), dropped)
        # the participants, a block of strata at a time (memory R x STRATA_BLOCK): labels, judge, ppi
        for start in range(0, g.n_strata - 1, STRATA_BLOCK):
            stop = min(start + STRATA_BLOCK, g.n_strata - 1)
            sums = _sums_block(counted, g.stratum, chosen, start, stop)
            lab = {name: sums[i] for i, name in enumerate(_PRODUCTS)}
            groups_l = sums[-1]
            strata = slice(start + 1, stop + 1)
            tot = {name: tot_all[i][strata] for i, name in enumerate(_PRODUCTS)}
            results = {
                "labels": _labels_alone(lab, groups_l, groups_t[strata], alpha=config.alpha),
                "judge": _judge_alone(rate[strata], index, defined),
                "ppi": _ppi(lab, tot, groups_l, groups_t[strata], alpha=config.alpha, finite=True),
            }
            summarise(results, lab, groups_l, strata)
        for method in methods:
            rows += by_method[method]
    schema = {k: v for k, v in ESTIMATION_SCHEMA.items() if k not in ("judge", "condition")}
    return pl.DataFrame(rows, schema=schema)


def _every_group(truth: float, n_groups: int, attempts: float) -> dict:
    return {
        "participant": None,
        "method": "labels",
        "n": n_groups,
        "groups": float(n_groups),
        "groups_total": n_groups,
        "labels": attempts,
        "truth": float(truth),
        "estimate": float(truth),
        "bias": 0.0,
        "sd": 0.0,
        "rmse": 0.0,
        "coverage": None,
        "coverage_se": None,
        "width": None,
        "reps": 0,
        "no_interval": 0,
        "undefined": 0,
        "all_labelled": None,
        "boot_undefined": None,
        "note": EVERY_GROUP,
    }


def _summaries(
    method, budget, est, lo, hi, truth, groups_l, groups_t, labels, strata_names, *, min_groups, dropped
) -> list[dict]:
    rows = []
    for k, name in enumerate(strata_names):
        if name is not None and method not in PER_PARTICIPANT:
            continue
        g, total = groups_l[:, k], groups_t[k]
        open_ = g < total  # not every group of the stratum labelled
        has = ~np.isnan(est[:, k]) & open_
        # an interval needs min_groups labelled groups in the repetition, and on average over the repetitions (a
        # participant's row does not report the coverage of the few samples that happened to reach min_groups)
        enough = (g >= min_groups) & (g.mean() >= min_groups)
        interval = has & enough & ~np.isnan(lo[:, k]) & ~np.isnan(hi[:, k])
        e = est[has, k]
        row = {
            "participant": name,
            "method": method,
            "n": budget,
            "groups": float(g.mean()),
            "groups_total": int(total),
            "labels": float(labels[:, k].mean()),
            "truth": float(truth[k]),
            "estimate": float(e.mean()) if len(e) else None,
            "bias": float(e.mean() - truth[k]) if len(e) else None,
            "sd": float(e.std()) if len(e) else None,
            "rmse": float(np.sqrt(np.mean((e - truth[k]) ** 2))) if len(e) else None,
            "coverage": None,
            "coverage_se": None,
            "width": None,
            "reps": int(interval.sum()),
            "no_interval": 0 if method == "judge" else int((has & ~interval).sum()),
            "undefined": int((np.isnan(est[:, k]) & open_).sum()),
            "all_labelled": int((~open_).sum()),
            "boot_undefined": float(np.mean(dropped[interval, k])) if dropped is not None and interval.any() else None,
            "note": None,
        }
        if interval.any():
            covered = (lo[interval, k] - TIE <= truth[k]) & (truth[k] <= hi[interval, k] + TIE)
            c = float(covered.mean())
            row |= {
                "coverage": c,
                "coverage_se": float(np.sqrt(c * (1 - c) / interval.sum())),
                "width": float(np.mean(hi[interval, k] - lo[interval, k])),
            }
        if method == "judge":
            row["note"] = JUDGE_NOTE
        elif not interval.any() and len(e):
            row["note"] = f"fewer than {min_groups} groups labelled: no interval"
        rows.append(row)
    return rows


def _participant_strata(cell: pl.DataFrame) -> np.ndarray | None:
    """A participant per attempt, None for an attempt whose participant has fewer than two groups (no
    cluster-robust interval is possible for it); None when fewer than two participants remain."""
    sizes = cell.filter(pl.col("participant").is_not_null()).group_by("participant").agg(pl.col("group").n_unique())
    kept = set(sizes.filter(pl.col("group") >= 2)["participant"].to_list())
    if len(kept) < 2:
        return None
    return np.array([v if v in kept else None for v in cell["participant"].to_list()], dtype=object)


def estimate_pass_rates(frame: pl.DataFrame, config: EstimationConfig = EstimationConfig()) -> pl.DataFrame:
    """:func:`simulate_cell` for every judge x condition of an :func:`estimation_frame`; the participants with at
    least two groups are strata when the cell has at least two of them."""
    missing = set(FRAME_COLUMNS) - set(frame.columns)
    if missing:
        raise ValueError(f"frame: expected columns {list(FRAME_COLUMNS)}; missing {sorted(missing)}")
    parts: list[pl.DataFrame] = []
    # one cell at a time (a copy of one cell, not of the frame), its attempts in unit order
    for judge, condition in frame.select("judge", "condition").unique().sort("judge", "condition").iter_rows():
        cell = frame.filter((pl.col("judge") == judge) & (pl.col("condition") == condition)).sort("unit")
        if cell["group"].n_unique() < 2:
            continue
        table = simulate_cell(
            cell["y"].to_numpy(),
            cell["p"].to_numpy(),
            cell["group"].to_numpy(),
            participants=_participant_strata(cell),
            config=config,
        )
        parts.append(table.with_columns(pl.lit(judge).alias("judge"), pl.lit(condition).alias("condition")))
    if not parts:
        return pl.DataFrame(schema=ESTIMATION_SCHEMA)
    return pl.concat(parts).select(list(ESTIMATION_SCHEMA)).sort("judge", "condition", "participant", "method", "n")


def estimate_cells(
    predictions: pl.DataFrame | TableReader,
    config: EstimationConfig = EstimationConfig(),
    *,
    grouping: str = "trajectory",
) -> pl.DataFrame:
    """``estimate_pass_rates(estimation_frame(predictions, grouping=grouping), config)`` with the predictions read
    one judge x condition at a time (a frame, or a :class:`TableReader` of the table): the same rows (a cell's
    table depends on its own rows only), one cell's predictions in memory, never the whole table."""
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping: expected one of {GROUPINGS}, got {grouping!r}")
    reader = as_reader(predictions, "predictions")
    parts = [
        estimate_pass_rates(estimation_frame(reader.read(judge=judge, condition=condition), grouping=grouping), config)
        for judge, condition in reader.keys("judge", "condition")
    ]
    if not parts:
        return pl.DataFrame(schema=ESTIMATION_SCHEMA)
    return pl.concat(parts).sort("judge", "condition", "participant", "method", "n", maintain_order=True)


# -- labels needed for equal precision -------------------------------------------------------------------------

LABELS_SAVED_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "method": pl.String,
        "n": pl.Int64,  # labels alone's budget, in groups
        "groups_total": pl.Int64,
        "labels": pl.Float64,  # labels alone's mean labelled attempts at n
        "rmse_labels": pl.Float64,
        "rmse": pl.Float64,
        "coverage": pl.Float64,
        "coverage_se": pl.Float64,
        "coverage_ok": pl.Boolean,  # within two Monte Carlo standard errors of nominal
        "groups_needed": pl.Float64,  # groups the method needs for labels alone's precision at n
        "attempts_needed": pl.Float64,
        "labels_saved": pl.Float64,  # n - groups_needed
        "attempts_saved": pl.Float64,  # labels - attempts_needed
        "note": pl.String,
    }
)


def groups_needed(n: float, total: float, mse_labels: float, mse: float) -> float:
    """Groups a method needs to match labels alone's MSE at n groups of ``total``, both MSEs scaling as
    ``(1/g - 1/G)`` (sampling without replacement).

    >>> round(groups_needed(50, 10**9, 0.01, 0.008), 3)  # no correction to speak of: n MSE / MSE_labels
    40.0
    >>> round(groups_needed(50, 160, 0.01, 0.008), 1)  # of 160 groups: the correction shrinks both MSEs
    42.7
    """
    return 1.0 / ((1.0 / n - 1.0 / total) * mse_labels / mse + 1.0 / total)


def coverage_within_error(coverage: float, reps: int, alpha: float) -> bool:
    """Is an empirical coverage within two Monte Carlo standard errors (at the nominal level) of 1 - alpha?"""
    return abs(coverage - (1 - alpha)) <= 2 * np.sqrt(alpha * (1 - alpha) / reps)


def labels_saved(estimation: pl.DataFrame, *, alpha: float = 0.05) -> pl.DataFrame:
    """Per judge x condition x judge-assisted method x n (every attempt, not per participant): the groups (and
    attempts) the method needs for the precision (MSE) labels alone achieve with n groups, and the labels saved;
    null, with a note, where the method's coverage is not within Monte Carlo error of nominal, or an MSE is 0."""
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a level in (0, 1), got {alpha!r}")
    overall = estimation.filter(pl.col("participant").is_null() & pl.col("note").is_null())
    base = overall.filter(pl.col("method") == "labels").select(
        "judge", "condition", "n", "labels", pl.col("rmse").alias("rmse_labels")
    )
    rows = []
    methods = overall.filter(pl.col("method").is_in(JUDGE_ASSISTED)).drop("labels")
    for r in methods.join(base, on=["judge", "condition", "n"], how="inner").iter_rows(named=True):
        ok = r["coverage"] is not None and coverage_within_error(r["coverage"], r["reps"], alpha)
        out = {k: r[k] for k in ("judge", "condition", "method", "n", "groups_total", "labels", "rmse_labels")}
        out |= {"rmse": r["rmse"], "coverage": r["coverage"], "coverage_se": r["coverage_se"], "coverage_ok": ok}
        out |= dict.fromkeys(("groups_needed", "attempts_needed", "labels_saved", "attempts_saved"))
        if r["estimate"] is None:
            out["note"] = "undefined in every repetition"
        elif r["coverage"] is None:
            out["note"] = "no interval: not compared"
        elif not ok:
            out["note"] = f"coverage {r['coverage']:.3f} not within Monte Carlo error of {1 - alpha:.2f}: not shown"
        elif not (r["rmse_labels"] and r["rmse"]):
            out["note"] = "an MSE of 0 (every sample knows the pass rate): no label-equivalent"
        else:
            needed = groups_needed(r["n"], r["groups_total"], r["rmse_labels"] ** 2, r["rmse"] ** 2)
            per_group = r["labels"] / r["n"]
            out |= {
                "groups_needed": needed,
                "attempts_needed": needed * per_group,
                "labels_saved": r["n"] - needed,
                "attempts_saved": r["labels"] - needed * per_group,
                "note": None,
            }
        rows.append(out)
    if not rows:
        return pl.DataFrame(schema=LABELS_SAVED_SCHEMA)
    return pl.DataFrame(rows, schema=LABELS_SAVED_SCHEMA).sort("judge", "condition", "method", "n")


def ppi_mean_interval(
    y, f, f_unlabelled, *, alpha: float = 0.05, groups=None, groups_unlabelled=None, finite: bool = False
) -> tuple:
    """PPI++ estimate of a mean and its (1 - alpha) interval: (estimate, lo, hi), by the same code the
    repeated-sampling study uses. ``finite=False``: ``ppi_py.ppi_mean_pointestimate`` and ``ppi_mean_ci`` with
    ``lam=None`` (with groups, the cluster-robust version); ``finite=True``: the unlabelled items are the rest of
    a finite population whose mean is the target, the design-based t interval with the correction (module
    docstring).

    >>> est, lo, hi = ppi_mean_interval([1, 0, 1, 1], [0.9, 0.2, 0.7, 0.6], [0.8, 0.1, 0.9, 0.3, 0.6])
    >>> round(est, 4), bool(lo < est < hi)
    (0.713, True)
    """
    y, f, _ = _check_cell(y, f, np.arange(len(np.asarray(y))))
    f_u = np.asarray(f_unlabelled, dtype=float)
    if f_u.ndim != 1 or len(f_u) == 0 or np.isnan(f_u).any():
        raise ValueError("f_unlabelled: expected a non-empty 1-D array of predictions without NaN")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a level in (0, 1), got {alpha!r}")
    labelled = np.arange(len(y)) if groups is None else np.asarray(groups)
    unlabelled = np.arange(len(f_u)) if groups_unlabelled is None else np.asarray(groups_unlabelled)
    if labelled.shape != y.shape or unlabelled.shape != f_u.shape:
        raise ValueError("groups, groups_unlabelled: expected one group per labelled and per unlabelled item")
    keys = np.concatenate([np.char.add("l\x1f", labelled.astype(str)), np.char.add("u\x1f", unlabelled.astype(str))])
    codes = cluster_codes(keys)
    n_groups = int(codes.max()) + 1
    yy, ff = np.concatenate([y, np.zeros(len(f_u))]), np.concatenate([f, f_u])
    g = {
        "m": np.bincount(codes, minlength=n_groups).astype(float),
        "y": np.bincount(codes, weights=yy, minlength=n_groups),
        "f": np.bincount(codes, weights=ff, minlength=n_groups),  # the predictions as given (not clipped)
    }
    values = {name: np.prod([g[k] for k in factors], axis=0) for name, factors in _PRODUCTS.items()}
    s = np.zeros(n_groups)
    s[: len(np.unique(labelled))] = 1.0  # "l" groups sort first
    lab = {name: np.array([[v @ s]]) for name, v in values.items()}
    tot = {name: np.array([v.sum()]) for name, v in values.items()}
    est, lo, hi = _ppi(lab, tot, np.array([[s.sum()]]), np.array([float(n_groups)]), alpha=alpha, finite=finite)
    return float(est[0, 0]), float(lo[0, 0]), float(hi[0, 0])
