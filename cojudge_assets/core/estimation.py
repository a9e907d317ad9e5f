"""A pass rate from few labels and a judge: what each way of estimating it gives, over many repeated samples.

The question (issue 18): "I can afford to label n attempts; the judge scores the rest: what pass rate can I
report, with what interval?". For every judge x condition, label budgets n and R repetitions, a labelled
sample is drawn and the pass rate (share of attempts accepted) is estimated four ways:

* ``labels``: the labelled attempts alone. The mean of y; its interval is the cluster-robust (CR1) t interval
  ``ybar +- t_{G-1} se``, ``se^2 = G/(G-1) * sum_g (Y_g - ybar M_g)^2 / n^2`` over the G labelled groups
  (Y_g the accepted attempts, M_g the attempts of group g, n = sum M_g). With one attempt per group it is
  the textbook t interval of a mean.
* ``judge``: the judge alone, no label: the share of attempts with ``p >= t``, t the judge's out-of-fold
  threshold (judge_metrics' ``threshold_oof_median``: the median of the per-fold thresholds). It does not
  depend on the sample; its interval (the same CR1 t interval, over every attempt) only says how precisely the
  judge's own rate is known, not how far it is from the truth: its coverage shows that.
* ``rogan_gladen``: ``(q + spec - 1) / (sens + spec - 1)`` clipped to [0, 1], q the judge's positive rate on
  every attempt, sensitivity and specificity (of the decision ``p >= t``) estimated on the labelled attempts
  (Rogan and Gladen 1978). Interval: percentile bootstrap over the labelled groups (resampled with
  replacement, q fixed). Undefined (no estimate) when the labelled sample has no accepted or no rejected
  attempt, or ``sens + spec <= 1``.
* ``ppi``: PPI++, prediction-powered inference of a mean with power tuning (Angelopoulos, Duchi and Zrnic
  2023, arXiv:2311.01453), as ``ppi_py.ppi_mean_ci(Y, Yhat, Yhat_unlabeled, lam=None)`` computes it, with
  the unlabelled set = the attempts not labelled: ``theta = lam fbar_u + mean_l(y - lam f)``,
  ``lam = clip(cov_l(y, f) / ((1 + n/N) var(f)), 0, 1)`` (cov with divisor n, var over all n + N attempts
  with divisor n + N - 1), ``se^2 = var_l(y - lam f)/n + lam^2 var_u(f)/N`` (divisor the count), z interval.
  Grouped samples: every (co)variance is taken over group sums (``sum_g (A_g - abar M_g)(B_g - bbar M_g)``
  in place of ``sum_i (a_i - abar)(b_i - bbar)``), which is the same number when every group is one attempt
  (tested against ppi_python to 1e-9) and the cluster-robust one otherwise.

Sampling: the unit of sampling is a **group**: a trajectory (participant x problem), or the problem when the
attempt has no participant; a labelled sample of budget n is n groups drawn without replacement (every attempt
of a drawn group labelled), seeded. ``n`` is therefore counted in groups, capped at the groups the cell has;
``labels`` gives the mean number of labelled attempts. Truth is the pass rate of every attempt of the cell
(the full-label pass rate). Per repetition the estimate and its interval; per method and n: the mean estimate,
bias (mean estimate - truth), RMSE, empirical coverage (share of repetitions whose interval holds the truth),
mean width, and ``reps``: the repetitions where the method was defined.

Per participant (where the corpus has two or more): the same labelled draws, restricted to the participant's
groups: ``labels`` and ``ppi`` use the participant's labelled and unlabelled attempts (undefined with fewer than
two labelled groups of the participant); ``rogan_gladen`` borrows sensitivity and specificity from the whole
labelled sample and takes q on the participant's attempts.

Labels saved (:func:`labels_saved`): the **label-equivalent budget** of a judge-assisted method at budget n is
``n_eff = n * (se_labels(n) / se_method(n))^2``: the budget labels alone would need to give an interval
as narrow (standard errors scale as 1/sqrt(n)); each se is the mean width over its quantile (``2 t_{n-1}``, and
CR1's ``sqrt(n/(n-1))``, for labels alone, ``2 z`` for the others), so neither counts as labels saved;
``labels_saved = n_eff - n``, in groups, and ``attempts_saved`` the
same in labelled attempts. A method at n is "as narrow as labels alone at k n" when ``n_eff >= k n``;
``first_n_at_k`` is the smallest budget where that holds (null if none).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
import polars as pl

from cojudge_assets.core.bootstrap import cluster_codes
from cojudge_assets.core.constants import SEED

METHODS = ("labels", "judge", "rogan_gladen", "ppi")
JUDGE_ASSISTED = ("rogan_gladen", "ppi")
TIE = 1e-12  # an interval end within this of the truth covers it (sums in another order differ by ulps)
THRESHOLD_METRIC = "threshold_oof_median"  # judge_metrics' row holding the out-of-fold threshold (value column)
FRAME_COLUMNS = ("judge", "condition", "unit", "group", "participant", "y", "p", "threshold")
ESTIMATION_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "participant": pl.String,  # null: every attempt of the cell
        "method": pl.String,
        "n": pl.Int64,  # label budget, in groups
        "labels": pl.Float64,  # mean labelled attempts
        "truth": pl.Float64,
        "estimate": pl.Float64,
        "bias": pl.Float64,
        "rmse": pl.Float64,
        "coverage": pl.Float64,
        "width": pl.Float64,
        "reps": pl.Int64,
    }
)


@dataclass(frozen=True)
class EstimationConfig:
    budgets: tuple[int, ...] = (25, 50, 100, 200)
    repetitions: int = 200
    bootstrap: int = 200  # Rogan-Gladen bootstrap resamples per repetition
    alpha: float = 0.05
    k: float = 2.0
    seed: int = SEED

    def __post_init__(self):
        if not self.budgets or any(int(b) != b or b < 2 for b in self.budgets):
            raise ValueError(f"budgets: expected a non-empty list of integers >= 2, got {self.budgets!r}")
        for name in ("repetitions", "bootstrap"):
            if getattr(self, name) < 1:
                raise ValueError(f"{name}: expected a positive integer, got {getattr(self, name)!r}")
        if not 0 < self.alpha < 1:
            raise ValueError(f"alpha: expected a level in (0, 1), got {self.alpha!r}")
        if self.k <= 1:
            raise ValueError(f"k: expected a label multiple > 1, got {self.k!r}")


# -- the frame ---------------------------------------------------------------------------------------------


def oof_thresholds(judge_metrics: pl.DataFrame) -> pl.DataFrame:
    """(judge, condition, threshold): the out-of-fold threshold, from judge_metrics' ``threshold_oof_median`` row."""
    missing = {"judge", "condition", "metric", "value"} - set(judge_metrics.columns)
    if missing:
        raise ValueError(f"judge_metrics: expected columns judge, condition, metric, value; missing {sorted(missing)}")
    return judge_metrics.filter(pl.col("metric") == THRESHOLD_METRIC).select(
        "judge", "condition", pl.col("value").alias("threshold")
    )


GROUPINGS = ("trajectory", "attempt")


def estimation_frame(
    predictions: pl.DataFrame, judge_metrics: pl.DataFrame, *, grouping: str = "trajectory"
) -> pl.DataFrame:
    """One row per answered attempt x judge x condition: unit (attempt_uid), group, participant, y, p (p_accept)
    and the cell's out-of-fold threshold. Cells without a threshold (a judge that was not scored) are left out.

    ``grouping``: ``trajectory`` (the default: the sampling group is the trajectory, or the problem when the
    attempt has no participant) or ``attempt`` (every attempt a group of its own: labels drawn attempt by attempt,
    for a corpus whose trajectories are built so that every one has the same pass rate, e.g. ITSP's pairs of one
    accepted and one rejected attempt, where whole-trajectory samples know the pass rate exactly)."""
    if grouping not in GROUPINGS:
        raise ValueError(f"grouping: expected one of {GROUPINGS}, got {grouping!r}")
    needed = {"attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id"}
    missing = needed - set(predictions.columns)
    if missing:
        raise ValueError(f"predictions: expected columns {sorted(needed)}; missing {sorted(missing)}")
    rows = predictions.filter(pl.col("p_accept").is_not_null() & pl.col("p_accept").is_not_nan())
    group = (
        pl.col("attempt_uid").cast(pl.String)
        if grouping == "attempt"
        else pl.when(pl.col("participant").is_null())
        .then(pl.lit("problem\x1f") + pl.col("problem_id").cast(pl.String))
        .otherwise(pl.col("participant").cast(pl.String) + pl.lit("\x1f") + pl.col("problem_id").cast(pl.String))
    )
    return (
        rows.select(
            "judge",
            "condition",
            pl.col("attempt_uid").alias("unit"),
            group.alias("group"),
            pl.col("participant").cast(pl.String),
            pl.col("y").cast(pl.Int64),
            pl.col("p_accept").cast(pl.Float64).alias("p"),
        )
        .join(oof_thresholds(judge_metrics), on=["judge", "condition"], how="inner")
        .sort("judge", "condition", "unit")
    )


# -- vectorised estimators over repetitions -----------------------------------------------------------------


@dataclass
class _Groups:
    """Per-group sums of one cell, and a stratum matrix Z (G x K): column 0 every group, then one per participant."""

    m: np.ndarray  # attempts
    y: np.ndarray  # accepted attempts
    f: np.ndarray  # sum of p
    d: np.ndarray  # judge positives (p >= t)
    yd: np.ndarray  # accepted and judged positive
    z: np.ndarray  # (G, K) 0/1

    @classmethod
    def build(cls, y, p, groups, threshold: float, strata=None) -> _Groups:
        codes = cluster_codes(np.asarray(groups))
        n_groups = int(codes.max()) + 1

        def total(values):
            return np.bincount(codes, weights=np.asarray(values, dtype=float), minlength=n_groups)

        d = (p >= threshold).astype(float)
        z = np.ones((n_groups, 1))
        if strata is not None:
            strata = np.asarray(strata, dtype=object)
            first = np.zeros(n_groups, dtype=np.int64)
            first[codes[::-1]] = np.arange(len(codes))[::-1]  # a group's first attempt gives its stratum
            labels = sorted({v for v in strata[first].tolist() if v is not None})
            index = {v: i for i, v in enumerate(labels)}
            one_hot = np.zeros((n_groups, len(labels)))
            for group, value in enumerate(strata[first].tolist()):
                if value is not None:  # an attempt outside every stratum counts only in column 0
                    one_hot[group, index[value]] = 1.0
            z = np.hstack([z, one_hot])
        return cls(total(np.ones(len(y))), total(y), total(p), total(d), total(y * d), z)


# products of the per-group sums that every estimator needs: one (R, G) x (G, len * K) product gives them all
_PRODUCTS = {
    "m": ("m",),
    "y": ("y",),
    "f": ("f",),
    "d": ("d",),
    "yd": ("yd",),
    "yy": ("y", "y"),
    "ym": ("y", "m"),
    "mm": ("m", "m"),
    "yf": ("y", "f"),
    "fm": ("f", "m"),
    "ff": ("f", "f"),
    "dd": ("d", "d"),
    "dm": ("d", "m"),
}


def _stratum_sums(values: np.ndarray, z: np.ndarray) -> np.ndarray:
    """``values @ z`` for values (..., G) and a 0/1 z whose column 0 is every group and whose other columns are
    disjoint: the participant columns as segment sums (reduceat) instead of a product with a mostly-zero z."""
    every = values.sum(axis=-1, keepdims=True)
    if z.shape[1] == 1:
        return every
    member = z[:, 1:]
    inside = member.any(axis=1)
    stratum = np.argmax(member, axis=1)
    order = np.flatnonzero(inside)[np.argsort(stratum[inside], kind="stable")]
    starts = np.searchsorted(stratum[order], np.arange(member.shape[1]))
    return np.concatenate([every, np.add.reduceat(values[..., order], starts, axis=-1)], axis=-1)


def _sums(g: _Groups, s: np.ndarray) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """The sums over the selected groups of every product in _PRODUCTS, per row of s and stratum (R, K); and
    the same over every group (K,)."""
    values = np.stack([np.prod([getattr(g, f) for f in factors], axis=0) for factors in _PRODUCTS.values()])
    every = (s @ values.T).T[:, :, None]  # (P, R, 1): one product for the whole sample
    if g.z.shape[1] == 1:
        selected = every
    else:  # participants: one (R, G) product at a time, so memory stays R x G
        selected = np.stack([_stratum_sums(s * v, g.z)[:, 1:] for v in values])
        selected = np.concatenate([every, selected], axis=2)  # (P, R, K)
    total = _stratum_sums(values, g.z)  # (P, K)
    names = list(_PRODUCTS)
    return {n: selected[i] for i, n in enumerate(names)}, {n: total[i] for i, n in enumerate(names)}


def _centred(sums: dict, a: str, b: str, abar, bbar):
    """``sum_g (A_g - abar M_g)(B_g - bbar M_g)`` from the sums of products."""
    ab = sums["".join(sorted((a, b), key="ydfm".index))] if a != b else sums[a + b]
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


def _estimates(g: _Groups, s: np.ndarray, *, alpha: float, boot: np.ndarray | None) -> dict[str, tuple]:
    """Per method: (estimate, lo, hi) arrays of shape (R, K), for the labelled selections s (R, G) 0/1.

    ``boot``: (B, R, n) bootstrap counts over the n labelled groups of each repetition (Rogan-Gladen), or None
    to skip it."""
    from scipy import stats

    lab, tot = _sums(g, s)
    unl = {name: tot[name] - lab[name] for name in lab}
    z_crit = stats.norm.ppf(1 - alpha / 2)
    n, n_u = lab["m"], unl["m"]  # labelled and unlabelled attempts (R, K)
    groups_l = s @ g.z  # labelled groups
    ok = groups_l >= 2
    ybar = _divide(lab["y"], n)
    yb, fl, fu = np.nan_to_num(ybar), np.nan_to_num(_divide(lab["f"], n)), np.nan_to_num(_divide(unl["f"], n_u))
    n_safe, nu_safe = np.where(n > 0, n, 1), np.where(n_u > 0, n_u, 1)
    syy = _centred(lab, "y", "y", yb, yb)
    syf = _centred(lab, "y", "f", yb, fl)
    sff = _centred(lab, "f", "f", fl, fl)
    out = {}

    # labels alone: CR1 t interval
    se = np.sqrt(np.maximum(syy, 0) * _divide(groups_l, groups_l - 1)) / n_safe
    t_crit = stats.t.ppf(1 - alpha / 2, np.maximum(groups_l - 1, 1))
    est = np.where(ok, ybar, np.nan)
    out["labels"] = (est, est - t_crit * se, est + t_crit * se)

    # PPI++: power-tuned lam, (co)variances over group sums
    fbar_all = tot["f"] / tot["m"]
    var_all = _centred(tot, "f", "f", fbar_all, fbar_all) / np.maximum(tot["m"] - 1, 1)  # (K,)
    with np.errstate(divide="ignore", invalid="ignore"):
        lam = np.where((n_u > 0) & (var_all > 0), (syf / n_safe) / ((1 + n / nu_safe) * var_all), 0.0)
    lam = np.clip(np.nan_to_num(lam), 0.0, 1.0)
    theta = lam * fu + yb - lam * fl
    var_rect = (syy - 2 * lam * syf + lam**2 * sff) / n_safe**2
    var_imp = lam**2 * _centred(unl, "f", "f", fu, fu) / nu_safe**2
    se = np.sqrt(np.maximum(var_rect, 0) + np.maximum(var_imp, 0))
    est = np.where(ok, theta, np.nan)
    out["ppi"] = (est, est - z_crit * se, est + z_crit * se)

    if boot is not None:
        out["rogan_gladen"] = _rogan_gladen(g, s, lab, tot, alpha=alpha, boot=boot)
    return out


def _rogan_gladen(g: _Groups, s: np.ndarray, lab: dict, tot: dict, *, alpha: float, boot: np.ndarray) -> tuple:
    """Sensitivity and specificity on the whole labelled sample (stratum 0), q per stratum; percentile bootstrap."""
    q = tot["d"] / tot["m"]  # (K,)

    def rg(sens, spec):
        denom = sens + spec - 1
        denom[~(denom > 0)] = np.nan  # undefined: no accepted or no rejected label, or sens + spec <= 1
        value = (q + (spec - 1)[..., None]) / denom[..., None]
        return np.clip(value, 0.0, 1.0, out=value)

    def tn(part):  # rejected and judged negative
        return part["m"] - part["y"] - part["d"] + part["yd"]

    sens = _divide(lab["yd"][:, 0], lab["y"][:, 0])
    spec = _divide(tn(lab)[:, 0], (lab["m"] - lab["y"])[:, 0])
    point = rg(sens, spec)  # (R, K)
    # the labelled groups of each repetition, in index order, and their sums
    chosen = np.nonzero(s)[1].reshape(len(s), boot.shape[2])  # row-major: each row's groups in index order
    group_tn = g.m - g.y - g.d + g.yd
    stat = np.stack([g.yd[chosen], g.y[chosen], group_tn[chosen], (g.m - g.y)[chosen]], axis=-1)  # (R, n, 4)
    # counts are whole numbers below 2**24: float32 sums are exact
    sums = np.matmul(boot.transpose(1, 0, 2), stat.astype(np.float32)).astype(float).transpose(2, 1, 0)  # (4, B, R)
    boot_rg = rg(_divide(sums[0], sums[1]), _divide(sums[2], sums[3]))  # (B, R, K)
    reps, strata = point.shape
    flat = boot_rg.transpose(1, 2, 0).reshape(reps * strata, -1)
    lo, hi = _percentile_interval(flat, alpha)
    return point, lo.reshape(reps, strata), hi.reshape(reps, strata)


def _judge_alone(g: _Groups, alpha: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The judge's positive rate on every attempt of each stratum, with the CR1 t interval over its groups."""
    from scipy import stats

    _, tot = _sums(g, np.zeros((1, len(g.m))))
    groups = g.z.sum(axis=0)
    rate = tot["d"] / tot["m"]
    sdd = _centred(tot, "d", "d", rate, rate)
    se = np.sqrt(np.maximum(sdd, 0) * _divide(groups, groups - 1)) / tot["m"]
    t_crit = stats.t.ppf(1 - alpha / 2, np.maximum(groups - 1, 1))
    est = np.where(groups >= 2, rate, np.nan)
    return est, est - t_crit * se, est + t_crit * se


def _selections(n_groups: int, budget: int, repetitions: int, rng: np.random.Generator) -> np.ndarray:
    """(R, G) 0/1: each row ``budget`` groups drawn without replacement."""
    order = np.argpartition(rng.random((repetitions, n_groups)), budget - 1, axis=1)[:, :budget]
    s = np.zeros((repetitions, n_groups))
    np.put_along_axis(s, order, 1.0, axis=1)
    return s


def bootstrap_counts(budget: int, *, resamples: int, repetitions: int, seed: int) -> np.ndarray:
    """(B, R, n) float32 counts: for each repetition, ``resamples`` multinomial draws of n out of n (its n labelled
    groups resampled with replacement). They depend only on the shape and seed, so one array serves every cell."""
    rng = np.random.default_rng((seed, budget, 1))
    rows = resamples * repetitions
    picks = rng.integers(0, budget, (rows, budget), dtype=np.int64)
    picks += np.arange(rows, dtype=np.int64)[:, None] * budget
    counts = np.bincount(picks.ravel(), minlength=rows * budget).astype(np.float32)
    return counts.reshape(resamples, repetitions, budget)


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


def simulate_cell(
    y,
    p,
    groups,
    *,
    threshold: float,
    participants=None,
    config: EstimationConfig = EstimationConfig(),
    counts: dict[int, np.ndarray] | None = None,
) -> pl.DataFrame:
    """The repeated-sampling study of one judge x condition: one row per participant (null: all) x method x n.

    ``y`` 0/1 labels, ``p`` the judge's probabilities, ``groups`` the sampling group of each attempt,
    ``threshold`` the judge's out-of-fold threshold, ``participants`` (optional) a participant per attempt.
    ``counts``: a cache of :func:`bootstrap_counts` by budget, shared by the cells of one run."""
    y, p, groups = _check_cell(y, p, groups)
    if not 0 <= threshold <= 1:
        raise ValueError(f"threshold: expected a value in [0, 1], got {threshold!r}")
    g = _Groups.build(y, p, groups, threshold, participants)
    strata_names = [None]
    if participants is not None:
        strata_names += sorted({v for v in np.asarray(participants, dtype=object).tolist() if v is not None})
    n_groups = len(g.m)
    truth = (g.z.T @ g.y) / (g.z.T @ g.m)
    judge = _judge_alone(g, config.alpha)
    rows = []
    for budget in sorted({min(int(b), n_groups) for b in config.budgets}):
        if budget < 2:
            continue
        rng = np.random.default_rng((config.seed, budget))
        s = _selections(n_groups, budget, config.repetitions, rng)
        counts = {} if counts is None else counts
        if budget not in counts:
            counts[budget] = bootstrap_counts(
                budget, resamples=config.bootstrap, repetitions=config.repetitions, seed=config.seed
            )
        results = _estimates(g, s, alpha=config.alpha, boot=counts[budget])
        reps_shape = (config.repetitions, len(truth))
        results["judge"] = tuple(np.broadcast_to(a, reps_shape) for a in judge)
        labels = (s @ (g.z * g.m[:, None])).mean(axis=0)
        for method in METHODS:
            est, lo, hi = results[method]
            rows += _summaries(method, budget, est, lo, hi, truth, labels, strata_names)
    return pl.DataFrame(rows, schema={k: v for k, v in ESTIMATION_SCHEMA.items() if k not in ("judge", "condition")})


def _summaries(method, budget, est, lo, hi, truth, labels, strata_names) -> list[dict]:
    defined = ~np.isnan(est) & ~np.isnan(lo) & ~np.isnan(hi)
    count = defined.sum(axis=0)
    rows = []
    for k, name in enumerate(strata_names):
        mask = defined[:, k]
        if not mask.any():
            rows.append(
                {"participant": name, "method": method, "n": budget, "labels": float(labels[k]), "truth": truth[k]}
                | {"estimate": None, "bias": None, "rmse": None, "coverage": None, "width": None, "reps": 0}
            )
            continue
        e, low, high = est[mask, k], lo[mask, k], hi[mask, k]
        rows.append(
            {
                "participant": name,
                "method": method,
                "n": budget,
                "labels": float(labels[k]),
                "truth": float(truth[k]),
                "estimate": float(e.mean()),
                "bias": float(e.mean() - truth[k]),
                "rmse": float(np.sqrt(np.mean((e - truth[k]) ** 2))),
                "coverage": float(np.mean((low - TIE <= truth[k]) & (truth[k] <= high + TIE))),
                "width": float(np.mean(high - low)),
                "reps": int(count[k]),
            }
        )
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
    counts: dict[int, np.ndarray] = {}
    for (judge, condition), cell in frame.group_by("judge", "condition", maintain_order=True):
        if cell["group"].n_unique() < 2:
            continue
        strata = _participant_strata(cell)
        table = simulate_cell(
            cell["y"].to_numpy(),
            cell["p"].to_numpy(),
            cell["group"].to_numpy(),
            threshold=float(cell["threshold"][0]),
            participants=strata,
            config=config,
            counts=counts,
        )
        parts.append(table.with_columns(pl.lit(judge).alias("judge"), pl.lit(condition).alias("condition")))
    if not parts:
        return pl.DataFrame(schema=ESTIMATION_SCHEMA)
    return pl.concat(parts).select(list(ESTIMATION_SCHEMA)).sort("judge", "condition", "participant", "method", "n")


LABELS_SAVED_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "method": pl.String,
        "n": pl.Int64,
        "labels": pl.Float64,
        "width_labels": pl.Float64,
        "width": pl.Float64,
        "coverage": pl.Float64,
        "n_eff": pl.Float64,
        "labels_saved": pl.Float64,
        "attempts_saved": pl.Float64,
        "at_k": pl.Boolean,
        "first_n_at_k": pl.Int64,
        "k": pl.Float64,
    }
)


def _labels_scale(n: int, alpha: float) -> float:
    """What labels alone's interval multiplies its standard error by beyond z: the t quantile and CR1's
    sqrt(G / (G - 1)) (PPI++, as ppi_python, takes variances with divisor n)."""
    from scipy import stats

    return float(stats.t.ppf(1 - alpha / 2, max(n - 1, 1)) * np.sqrt(n / max(n - 1, 1)))


def labels_saved(estimation: pl.DataFrame, *, k: float = 2.0, alpha: float = 0.05) -> pl.DataFrame:
    """Per judge x condition x judge-assisted method x n (every attempt, not per participant): the
    label-equivalent budget ``n_eff = n (se_labels / se)^2``, ``labels_saved = n_eff - n`` (groups),
    ``attempts_saved = labels (n_eff / n - 1)``, ``at_k`` = ``n_eff >= k n`` and ``first_n_at_k`` the smallest n
    where it holds (see the module docstring). The standard errors are the widths on one scale: labels alone's
    t interval divided by ``2 t_{n-1} sqrt(n / (n - 1))`` (its quantile and CR1 factor), the judge-assisted
    intervals (z, or a bootstrap percentile interval) by ``2 z``, so that neither is counted as labels saved."""
    from scipy import stats

    if k <= 1:
        raise ValueError(f"k: expected a label multiple > 1, got {k!r}")
    if not 0 < alpha < 1:
        raise ValueError(f"alpha: expected a level in (0, 1), got {alpha!r}")
    overall = estimation.filter(pl.col("participant").is_null())
    z_crit = stats.norm.ppf(1 - alpha / 2)
    base = overall.filter(pl.col("method") == "labels").select(
        "judge",
        "condition",
        "n",
        pl.col("width").alias("width_labels"),
        pl.col("n").map_elements(lambda n: _labels_scale(n, alpha) / z_crit, return_dtype=pl.Float64).alias("t_over_z"),
    )
    # a zero width (a sample that knows the pass rate exactly) has no label-equivalent budget
    ratio = pl.when((pl.col("width") > 0) & (pl.col("width_labels") > 0)).then(
        (pl.col("width_labels") / pl.col("t_over_z") / pl.col("width")) ** 2
    )
    table = (
        overall.filter(pl.col("method").is_in(JUDGE_ASSISTED))
        .join(base, on=["judge", "condition", "n"], how="inner")
        .with_columns((pl.col("n") * ratio).alias("n_eff"))
        .with_columns(
            (pl.col("n_eff") - pl.col("n")).alias("labels_saved"),
            (pl.col("labels") * (ratio - 1)).alias("attempts_saved"),
            (pl.col("n_eff") >= k * pl.col("n")).fill_null(False).alias("at_k"),
            pl.lit(float(k)).alias("k"),
        )
    )
    first = (
        table.filter(pl.col("at_k"))
        .group_by("judge", "condition", "method")
        .agg(pl.col("n").min().alias("first_n_at_k"))
    )
    return (
        table.join(first, on=["judge", "condition", "method"], how="left")
        .select(list(LABELS_SAVED_SCHEMA))
        .cast(LABELS_SAVED_SCHEMA)
        .sort("judge", "condition", "method", "n")
    )


def ppi_mean_interval(y, f, f_unlabelled, *, alpha: float = 0.05, groups=None, groups_unlabelled=None) -> tuple:
    """PPI++ estimate of a mean and its (1 - alpha) interval: (estimate, lo, hi), by the same code the
    repeated-sampling study uses. Without groups it is ``ppi_py.ppi_mean_pointestimate`` and ``ppi_mean_ci``
    with ``lam=None``; with groups, the cluster-robust version (module docstring).

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
    n = len(y)
    labelled = np.arange(n) if groups is None else np.asarray(groups)
    unlabelled = np.arange(len(f_u)) if groups_unlabelled is None else np.asarray(groups_unlabelled)
    if labelled.shape != y.shape or unlabelled.shape != f_u.shape:
        raise ValueError("groups, groups_unlabelled: expected one group per labelled and per unlabelled item")
    keys = np.concatenate([np.char.add("l\x1f", labelled.astype(str)), np.char.add("u\x1f", unlabelled.astype(str))])
    yy = np.concatenate([y, np.zeros(len(f_u))])
    ff = np.concatenate([f, f_u])
    g = _Groups.build(yy, np.clip(ff, 0, 1), keys, 0.5)
    g.f = np.bincount(cluster_codes(keys), weights=ff)  # the predictions as given (not clipped)
    s = np.zeros((1, len(g.m)))
    s[0, : len(np.unique(labelled))] = 1.0  # "l" groups sort first
    est, lo, hi = _estimates(g, s, alpha=alpha, boot=None)["ppi"]
    return float(est[0, 0]), float(lo[0, 0]), float(hi[0, 0])
