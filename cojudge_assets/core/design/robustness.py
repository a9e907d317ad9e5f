"""Which findings the data supports, and how robust each is (seed study VI): contamination and findings tables.

Two tables, both from the long predictions table and the design split (core/design/split.py):

* :func:`contamination`: every measurement metric of each judge x condition on
  the inspectable part (the design split's train and validation groups, what a
  prompt designer could read) and on the never-inspected part (its test
  groups), with the prevalence of both, and the paired difference inspectable
  minus never-inspected. Contrasting the inspectable part with test, not the
  full corpus with test, keeps test out of both sides: test is about a tenth of
  the corpus, so a full-vs-test contrast shares most of its attempts with the
  inspectable side and dilutes a leak. All three come from one set of
  trajectory-bootstrap resamples (core/stats/bootstrap.py): a resample draws
  trajectories, each part uses its drawn trajectories, so both sides move
  together. A cell is **flagged** when the paired difference of its ROC-AUC
  has an interval excluding 0 on the positive side: the judge ranks better on
  what the prompt designer could read than on what they never saw. Beside the
  flag, ``detectable`` is the smallest ROC-AUC difference the check would flag
  with 80% power, ``(z_{0.975} + z_{0.80}) * SE``, SE the standard deviation
  of the paired difference over the resamples (:func:`detectable_difference`):
  "not flagged" with a detectable difference of 0.25 says that only a large
  leak could have shown. A cell of at least ``analytic_from`` predictions in
  each part (RobustnessConfig) takes its intervals and SE from design-based
  analytic variances instead, clustered by trajectory (the measurement's influences,
  core/stats/analytic.py; the paired difference from the difference of the two
  parts' trajectory totals), and draws no resample; ``ci_method`` names which.
  Only ROC-AUC flags, because only it compares like with like across two
  parts of different size and case mix: PR-AUC and MCC move
  with the prevalence, ECE is biased upward on a smaller sample (fewer attempts
  per bin), Brier and log loss move with how hard the part's attempts are.
  Their differences are reported, their ``flagged`` and ``detectable`` are
  null, as is the prevalence's (``base_rate``). When test problems also appear
  in the inspectable part (a split by trajectory), a prompt tuned to a problem
  cannot show; the design split can group by problem instead
  (core/design/split.py, ``unit="problem"``), so that no test problem is ever
  inspected.
* :func:`findings`: each comparison the measurement makes: a judge above
  chance (ROC-AUC - 0.5), a judge above another under the same condition, one
  condition above another for a judge, the panel above its mean member, a
  perturbation arm above the control (arm discrimination - 0.5). Every ROC-AUC
  is computed on the attempts the judge answered, as in the measurement tables.
  The claimed direction is the point estimate's (for a judge against a judge, a
  condition against a condition) or the comparison's own (above chance, panel
  above mean member, arm above control); ``estimate`` is the claimed side minus
  the other, so a positive estimate agrees with the claim. Each row gives the
  estimate, its interval and :func:`status` under trajectory resampling (the
  primary one, unprefixed), problem resampling (``problem_``), equal problem
  weights (``equal_weights_``: the mean of per-problem ROC-AUCs, problems with
  both labels, as in ``per_problem``'s macro average, with a problem-bootstrap
  interval) and on the never-inspected part (``never_inspected_``: trajectory
  resampling of the test groups), and ``widening`` = problem interval width /
  trajectory interval width.

  *At large n* a comparison whose every side is a cell of at least
  ``analytic_from`` predictions (a panel: every member's cell) takes its
  trajectory and problem intervals from the ROC-AUC influences (DeLong's
  placements, core/stats/analytic.py) summed per trajectory and per problem, as
  the measurement does from the same switch point; its never-inspected interval
  is analytic when each side has ``analytic_from`` predictions on that part
  (a tenth of the cell). A paired difference's variance is that of the
  difference of the two sides' cluster totals. Only the sides of the other
  comparisons are resampled, so at 10^6 attempts nothing is (each block of
  resamples re-sorted every cell's million scores: 27 to 37 CPU-minutes). The
  equal-weights interval resamples the per-problem ROC-AUCs, a (B, problems)
  product, at every n. Each interval's method is in ``ci_method`` (with the
  scheme's prefix): ``analytic`` or ``bootstrap``.

  *One row per distinct result.* A judge that ignores the context answers the
  same under every condition, so its rows under each condition are the same
  numbers: such rows are one row whose ``condition`` names every condition that
  shares it (``shared_by`` counts them). Its comparison of one condition with
  another is 0 with the interval [0, 0] under every check: that row says **no
  difference by construction** (status ``by construction``) and is not a test.
  Any other row whose estimate and interval are exactly 0 states no direction
  ("no difference between ...").

  *Multiplicity.* The stated family is every distinct ROC-AUC row that is a
  test (``family`` = ``roc_auc``; by-construction rows are not), and
  separately the perturbation rows (``arm_discrimination``). Each row's
  ``p_value`` is the two-sided p of its primary estimate from the bootstrap
  standard error (:func:`bootstrap_p`: ``2 * Phi(-|estimate| / SE)``, SE the
  standard deviation of the replicates), or, where the primary interval is
  analytic, from the analytic one on the interval's own t reference
  (core/stats/analytic.py ``p_from_totals``: p < 0.05 exactly when the interval
  excludes 0). A percentile p cannot fall below
  1 / (resamples + 1), so with m tests no Holm-adjusted p could fall below
  m / (resamples + 1): at 1,000 resamples nothing could hold in a family of
  more than about 50. A row whose replicates do not vary (an interval [x, x],
  such as a judge that answers every mutant of a subset alike) tests nothing:
  it has no p and is not in the family. ``holm_p`` its Holm-adjusted value
  within the family (statsmodels ``multipletests``, ``method="holm"``) and
  ``holm_status`` the status at 0.05 after the adjustment: ``holds`` or
  ``reversed`` only when the raw status says so and ``holm_p < 0.05``, else
  ``tie``.

  *Perturbation rows* come from the per-mutant pairs (``judged_pairs``: each
  mutant with its seed, on the primary subset of seeds the judge accepted),
  each mutant clustered by its seed and by its seed's problem: the primary
  interval resamples mutation seeds (as ``perturbation_metrics``, whose figure
  it keeps), problem resampling draws the seeds' problems, equal weights is the
  mean over problems of the per-problem arm discrimination (problems with both
  arms) with a problem-bootstrap interval, and the never-inspected part keeps
  the mutants whose seed attempt is in the design split's test groups.

Numbers already in the measurement tables are reused, not recomputed: a judge's
ROC-AUC with its trajectory and problem intervals (``judge_metrics``), a
condition's change (``condition_effects``), the panel's gain over its mean
member (``panel``), the macro average (``per_problem``). The rest comes from
resamples drawn as the measurement draws them (same seeds, trajectory then
problem), so with the same count they are the measurement's own resamples.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from itertools import combinations
from typing import Any, cast

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.design.split import INSPECTABLE, NEVER_INSPECTED, attempt_splits
from cojudge_assets.core.frames import TableReader, as_reader
from cojudge_assets.core.measurement.measure import (
    INFLUENCES,
    INSTRUMENT_METRICS,
    PANEL,
    SCALAR_METRICS,
    UNIVERSE_COLUMNS,
    Analytic,
    MeasurementConfig,
    Universe,
    _condition_order,
    condition_panel,
    oof_decisions,
)
from cojudge_assets.core.measurement.predictions import cell_slices
from cojudge_assets.core.perturbation.stats import PerturbationConfig, perturbation_statistics, primary
from cojudge_assets.core.stats import analytic as an
from cojudge_assets.core.stats import metrics as m
from cojudge_assets.core.stats.bootstrap import cluster_codes, cluster_counts, cluster_weights, interval

HOLDS, TIE, REVERSED, UNDEFINED = "holds", "tie", "reversed", "undefined"
ANALYTIC, BOOTSTRAP = "analytic", "bootstrap"  # an interval's ci_method
BY_CONSTRUCTION = "by construction"  # a judge that ignores the context: identical answers under both conditions
ALPHA = 0.05
PERTURBATION = PerturbationConfig()  # the perturbation study's defaults (seed cut, resamples, seed)
SCHEMES = ("trajectory", "problem", "equal_weights", "never_inspected")
ANALYTIC_SCHEMES = ("trajectory", "problem", "never_inspected")  # equal weights resamples per-problem figures only
PREFIX = {
    "trajectory": "",
    "problem": "problem_",
    "equal_weights": "equal_weights_",
    "never_inspected": "never_inspected_",
}


@dataclass(frozen=True)
class RobustnessConfig:
    resamples: int = 1000  # the measurement's count or fewer: these replicates feed differences and checks
    seed: int = SEED  # the measurement's seed: trajectory resamples from seed, problem resamples from seed + 1
    folds: int = 10  # the out-of-fold MCC's folds, as in the measurement
    level: float = 0.95
    # a figure on at least this many predictions gets analytic intervals (None: the bootstrap always): contamination's
    # cell when each part has as many, findings' comparison when each side's cell has (on the never-inspected part:
    # has there)
    analytic_from: int | None = 5000


def status(lo: float | None, hi: float | None) -> str:
    """A claim's status from the interval of (claimed side - other side): ``holds`` when it excludes 0 on the
    claimed side, ``reversed`` when it excludes 0 on the other side, ``tie`` when it contains 0, ``undefined``
    without an interval.

    >>> [status(0.01, 0.2), status(-0.1, 0.2), status(-0.3, -0.01), status(None, None)]
    ['holds', 'tie', 'reversed', 'undefined']
    """
    if lo is None or hi is None or not (np.isfinite(lo) and np.isfinite(hi)):
        return UNDEFINED
    if lo > 0:
        return HOLDS
    if hi < 0:
        return REVERSED
    return TIE


# ---------------------------------------------------------------------------------------------- the split's mask


def _test_mask(u: Universe, design_split: pl.DataFrame) -> np.ndarray:
    return (attempt_splits(u.attempts, design_split, source="predictions") == NEVER_INSPECTED).to_numpy()


def _part(decisions: np.ndarray | None, index: np.ndarray) -> np.ndarray | None:
    """Some of a cell's out-of-fold decisions; None when it has none (one trajectory, measure.NO_FOLDS)."""
    return None if decisions is None else decisions[index]


def _measurement(config: RobustnessConfig) -> MeasurementConfig:
    return MeasurementConfig(folds=config.folds, resamples=config.resamples, seed=config.seed)


def _universe(predictions: pl.DataFrame, config: RobustnessConfig, attempts: pl.DataFrame | None = None) -> Universe:
    return Universe(predictions, _measurement(config), attempts)


def _universe_of_cells(reader: TableReader, config: RobustnessConfig) -> Universe:
    """The universe of every judge x condition of the predictions ``reader`` reads, a cell at a time: only each
    cell's arrays are kept (core/measurement/measure.py ``Universe.from_slices``: 16 bytes a prediction), never the
    predictions' strings (at 10^6 attempts x 6 cells the table is ~1.5 GB resident); the attempts' columns found by
    the store (one row per attempt: they are the same in every cell). The universe ``Universe(predictions)`` makes
    of the whole table."""
    return Universe.from_slices(cell_slices(reader), _measurement(config), _attempts_of(reader))


def _attempts_of(reader: TableReader) -> pl.DataFrame:
    """The predictions' attempts (:data:`UNIVERSE_COLUMNS`, one row each, by attempt_uid), found by the store: an
    attempt's columns are the same in every cell, so its distinct rows are one per attempt."""
    return reader.distinct(*UNIVERSE_COLUMNS).unique("attempt_uid").sort("attempt_uid")


# ---------------------------------------------------------------------------------------------- contamination

# the instrument metrics of the measurement (core/measurement/measure.py's registry) and the prevalence beside them
CONTAMINATION_METRICS: tuple[str, ...] = (*INSTRUMENT_METRICS, "base_rate")
CONTAMINATION_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "metric": pl.String,
    "inspectable": pl.Float64,  # train and validation: what a prompt designer could read
    "inspectable_lo": pl.Float64,
    "inspectable_hi": pl.Float64,
    "never_inspected": pl.Float64,  # test
    "never_inspected_lo": pl.Float64,
    "never_inspected_hi": pl.Float64,
    "difference": pl.Float64,  # inspectable - never_inspected
    "difference_lo": pl.Float64,
    "difference_hi": pl.Float64,
    "n_inspectable": pl.Int64,
    "n_never_inspected": pl.Int64,
    "flagged": pl.Boolean,  # ROC-AUC only (leak_flag); null for the other metrics and the prevalence
    "detectable": pl.Float64,  # ROC-AUC only: the smallest difference flagged with 80% power (detectable_difference)
    "ci_method": pl.String,  # bootstrap, or analytic (a cell of at least analytic_from predictions in each part)
}
POWER = 0.80


def _power_factor(level: float, power: float = POWER) -> float:
    from scipy.stats import norm

    return float(norm.ppf(1 - (1 - level) / 2) + norm.ppf(power))


def detectable_difference(replicates: np.ndarray, level: float = 0.95, power: float = POWER) -> float | None:
    """The smallest true difference the one-sided flag detects with probability ``power``: ``(z_{1-a/2} +
    z_{power}) * sd(replicates)``, a = 1 - level (the flag is the lower end of a two-sided ``level`` interval),
    the normal approximation to the paired difference's bootstrap distribution. None without two finite
    replicates.

    >>> round(detectable_difference(np.random.default_rng(0).normal(0, 0.1, 20000)), 2)
    0.28
    """
    finite = replicates[np.isfinite(replicates)]
    if finite.size < 2:
        return None
    return _power_factor(level, power) * float(np.std(finite, ddof=1))


def analytic_detectable(totals: np.ndarray, level: float = 0.95, power: float = POWER) -> float | None:
    """:func:`detectable_difference` with the paired difference's analytic standard error (the cluster totals of
    its influences, core/stats/analytic.py) in place of the replicates' spread. None with fewer than two
    clusters."""
    g = int(np.count_nonzero(totals))
    if g < 2:
        return None if np.any(totals) else 0.0
    return _power_factor(level, power) * float(np.sqrt(g / (g - 1) * np.sum(totals**2)))


FLAGGED_METRICS = ("roc_auc",)  # see the module docstring: the one metric comparable across the two parts


def leak_flag(metric: str, lo: float, hi: float) -> bool | None:
    """For a flagged metric (:data:`FLAGGED_METRICS`): True when the interval of inspectable - never_inspected
    excludes 0 on the side where the inspectable part is better; None for the other metrics and when the interval
    is undefined.

    >>> leak_flag("roc_auc", 0.01, 0.08), leak_flag("roc_auc", -0.02, 0.05), leak_flag("brier", -0.05, -0.01)
    (True, False, None)
    """
    higher_is_better = SCALAR_METRICS[metric].higher_is_better
    if metric not in FLAGGED_METRICS or higher_is_better is None:
        return None
    if not (np.isfinite(lo) and np.isfinite(hi)):
        return None  # undefined on the never-inspected part (no attempt of the judge there, or one label only)
    return bool(lo > 0) if higher_is_better else bool(hi < 0)


def contamination(
    predictions: pl.DataFrame | TableReader,
    design_split: pl.DataFrame,
    config: RobustnessConfig = RobustnessConfig(),
    *,
    metrics: tuple[str, ...] | None = None,
) -> pl.DataFrame:
    """Per judge x condition x metric: the metric on the inspectable part (train and validation) and on the
    never-inspected part (test), the paired difference inspectable - never_inspected, each with a
    trajectory-bootstrap interval, the leak flag (:func:`leak_flag`) and, for ROC-AUC, the smallest difference
    detectable at 80% power (:func:`detectable_difference`; analytic, :func:`analytic_detectable`, with the
    intervals, in a cell of at least ``config.analytic_from`` predictions in each part: column ``ci_method``).
    Out-of-fold MCC uses the measurement's out-of-fold decisions (same folds and seed). ``metrics`` limits the rows
    to some of :data:`CONTAMINATION_METRICS` (all by default). ``predictions`` a frame, or a :class:`TableReader` of
    the table: its cells are read one at a time, and its attempts' columns found by the store."""
    reader = as_reader(predictions, "predictions")
    cells = reader.keys("judge", "condition")
    if not cells:
        return pl.DataFrame(schema=CONTAMINATION_SCHEMA)
    # a judge x condition at a time over every attempt (the folds and the trajectories' resamples are drawn over
    # the attempts, not the cell): the same rows as the cells together, with one cell's rows in memory
    attempts = _attempts_of(reader)
    splits = attempt_splits(attempts, design_split, source="predictions")
    tables = [
        _contamination(reader.read(judge=judge, condition=condition), attempts, splits, config, metrics)
        for judge, condition in cells
    ]
    return pl.concat(tables)


def _contamination(
    predictions: pl.DataFrame,
    attempts: pl.DataFrame,
    splits: pl.Series,
    config: RobustnessConfig,
    metrics: tuple[str, ...] | None,
) -> pl.DataFrame:
    """:func:`contamination`'s rows of the cells of ``predictions`` over ``attempts`` (sorted by attempt_uid),
    ``splits`` the design split of each attempt."""
    chosen = {name: SCALAR_METRICS[name].fn for name in (metrics or CONTAMINATION_METRICS)}
    u = _universe(predictions, config, attempts)
    n_trajectories = u.n_trajectories
    test = (splits == NEVER_INSPECTED).to_numpy()
    seen = splits.is_in(list(INSPECTABLE)).to_numpy()
    decisions = {
        key: oof_decisions(cell.y, cell.p, u.folds[cell.index])[0] if "mcc_oof" in chosen else cell.p
        for key, cell in u.cells.items()
    }
    # each part's figures on the cell's attempts in that part only: the same as zero weights elsewhere, cheaper
    parts = {key: (np.flatnonzero(seen[cell.index]), np.flatnonzero(test[cell.index])) for key, cell in u.cells.items()}
    # a cell with at least analytic_from predictions in each part: analytic intervals, none of its replicates drawn
    # (the other cells' replicates are the same resamples as without it: the weights are drawn per trajectory, not
    # per cell). Each part's figure is computed on that part alone, and the never-inspected part is about a tenth
    # of the cell: at 500 predictions the analytic ECE covers 0.887 (docs/methodology.md), so the part decides
    least = config.analytic_from
    exact = {key for key in u.cells if least is not None and min(map(len, parts[key])) >= least}
    resampled = {key: cell for key, cell in u.cells.items() if key not in exact}
    seen_reps: dict[tuple, list[np.ndarray]] = {}
    test_reps: dict[tuple, list[np.ndarray]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", m.UndefinedMetricWarning)
        warnings.simplefilter("ignore", RuntimeWarning)
        for w in cluster_weights(u.trajectory, config.resamples, config.seed) if resampled else ():
            for key, cell in resampled.items():
                wc, (si, ti) = w[:, cell.index], parts[key]
                y, p, d = cell.y, cell.p, decisions[key]
                for name, fn in chosen.items():
                    seen_reps.setdefault((*key, name), []).append(fn(y[si], p[si], _part(d, si), wc[:, si]))
                    test_reps.setdefault((*key, name), []).append(fn(y[ti], p[ti], _part(d, ti), wc[:, ti]))
        rows = []
        for key, cell in u.cells.items():
            si, ti = parts[key]
            y, p, d = cell.y, cell.p, decisions[key]
            for name, fn in chosen.items():
                inspected = float(fn(y[si], p[si], _part(d, si), np.ones((1, len(si))))[0])
                never = float(fn(y[ti], p[ti], _part(d, ti), np.ones((1, len(ti))))[0])
                if key in exact:
                    traj = u.trajectory[cell.index]
                    st = _part_totals(name, inspected, y, p, d, si, traj, n_trajectories)
                    tt = _part_totals(name, never, y, p, d, ti, traj, n_trajectories)
                    (slo, shi) = an.interval_from_totals(inspected, st, config.level)
                    (tlo, thi) = an.interval_from_totals(never, tt, config.level)
                    dlo, dhi = an.interval_from_totals(inspected - never, st - tt, config.level)
                    flag = leak_flag(name, dlo, dhi)
                    detectable = analytic_detectable(st - tt, config.level) if flag is not None else None
                else:
                    sr = np.concatenate(seen_reps[(*key, name)])
                    tr = np.concatenate(test_reps[(*key, name)])
                    (slo, shi), (tlo, thi) = interval(sr, config.level), interval(tr, config.level)
                    dlo, dhi = interval(sr - tr, config.level)
                    flag = leak_flag(name, dlo, dhi)
                    detectable = detectable_difference(sr - tr, config.level) if flag is not None else None
                rows.append(
                    {
                        "judge": key[0],
                        "condition": key[1],
                        "metric": name,
                        "inspectable": inspected,
                        "inspectable_lo": slo,
                        "inspectable_hi": shi,
                        "never_inspected": never,
                        "never_inspected_lo": tlo,
                        "never_inspected_hi": thi,
                        "difference": inspected - never,
                        "difference_lo": dlo,
                        "difference_hi": dhi,
                        "n_inspectable": len(si),
                        "n_never_inspected": len(ti),
                        "flagged": flag,
                        "detectable": detectable,
                        "ci_method": ANALYTIC if key in exact else BOOTSTRAP,
                    }
                )
    return pl.DataFrame(rows, schema=CONTAMINATION_SCHEMA)


def _part_totals(name, value, y, p, d, part, trajectory, n_trajectories) -> np.ndarray:
    """The trajectory totals of metric ``name``'s influences on the attempts ``part`` of a cell (positions in the
    cell; ``trajectory`` the cell's trajectory codes): NaN where the metric is undefined on the part."""
    if not np.isfinite(value) or len(part) == 0:
        return np.full(n_trajectories, np.nan)
    # a cell without out-of-fold decisions passes None: measure.INFLUENCES' mcc_oof answers NaN for it
    influence = INFLUENCES[name](y[part], p[part], cast(np.ndarray, _part(d, part)))
    return an.cluster_totals(influence, trajectory[part], n_trajectories)


# ---------------------------------------------------------------------------------------------- findings

FINDINGS_SCHEMA = {
    "finding": pl.String,  # the claim in words
    "kind": pl.String,  # above_chance, judge_vs_judge, condition_vs_condition, panel_vs_mean_member, perturbation_arm
    "judge": pl.String,  # the claimed side (a judge, or "panel")
    "condition": pl.String,  # the claimed condition(s), comma-separated when several share the row (or the subset)
    "versus": pl.String,  # the other side: "chance", another judge, another condition, "mean member", "control arm"
    "metric": pl.String,
    "resampling": pl.String,  # what the unprefixed interval resamples: trajectory (mutation seed for perturbation)
    **{
        f"{PREFIX[s]}{field}": t
        for s in SCHEMES
        for field, t in (("estimate", pl.Float64), ("lo", pl.Float64), ("hi", pl.Float64), ("status", pl.String))
    },
    "widening": pl.Float64,  # problem interval width / trajectory interval width
    "n": pl.Int64,  # attempts behind the claimed side (mutants for perturbation)
    "shared_by": pl.Int64,  # how many conditions (or condition pairs) give this same result
    "family": pl.String,  # the multiplicity family (roc_auc, arm_discrimination); null: not a test
    "p_value": pl.Float64,  # two-sided p of the primary estimate: bootstrap_p, or analytic (an.p_from_totals)
    "holm_p": pl.Float64,  # Holm-adjusted within the family
    "holm_status": pl.String,  # the primary status after the Holm adjustment at ALPHA
    # each interval's method, last (a table an older release wrote gains them at the end, defs/io.py): analytic (every
    # side's cell of at least analytic_from predictions) or bootstrap; equal weights always resamples the problems
    **{f"{PREFIX[s]}ci_method": pl.String for s in SCHEMES},
}


def bootstrap_p(estimate: float | None, replicates: np.ndarray) -> float | None:
    """Two-sided p of "the difference is 0" from the bootstrap standard error: ``2 * Phi(-|estimate| / SE)``, SE
    the standard deviation (ddof 1) of the finite replicates. It has no floor at 1 / (B + 1), so a family of many
    strong effects can hold after Holm. None (not a test) without an estimate, with fewer than 2 finite replicates
    or when they do not vary (SE 0: an interval [x, x] tests nothing).

    >>> round(bootstrap_p(0.2, np.array([0.1, 0.2, 0.3])), 4), bootstrap_p(0.5, np.full(4, 0.5))
    (0.0455, None)
    """
    from scipy.stats import norm

    finite = np.asarray(replicates, dtype=np.float64)
    finite = finite[np.isfinite(finite)]
    if estimate is None or not np.isfinite(estimate) or finite.size < 2:
        return None
    se = float(np.std(finite, ddof=1))
    if not se > 1e-12:
        return None
    return float(2 * norm.sf(abs(estimate) / se))


def holm(rows: list[dict], alpha: float = ALPHA) -> None:
    """Fill ``holm_p`` and ``holm_status`` of ``rows`` in place, Holm within each ``family`` (rows without a family
    or a p-value get none: their ``holm_status`` is their status)."""
    from statsmodels.stats.multitest import multipletests

    for row in rows:
        row["holm_p"], row["holm_status"] = None, row["status"]
    families: dict[str, list[dict]] = {}
    for row in rows:
        if row.get("family") and row.get("p_value") is not None:
            families.setdefault(row["family"], []).append(row)
    for members in families.values():
        reject, adjusted, _, _ = multipletests([r["p_value"] for r in members], alpha=alpha, method="holm")
        for row, keep, p in zip(members, reject, adjusted):
            row["holm_p"] = float(p)
            row["holm_status"] = (
                row["status"]
                if row["status"] in (HOLDS, REVERSED) and keep
                else (TIE if row["status"] in (HOLDS, REVERSED, TIE) else row["status"])
            )


class _Figures:
    """Point estimates and, for the intervals, bootstrap replicates or analytic cluster totals of every ROC-AUC a
    finding compares, under one scheme.

    Keys: ("cell", judge, condition), ("panel", condition), ("mean_member", condition).
    """

    def __init__(self) -> None:
        self.point: dict[tuple, float] = {}
        self.reps: dict[tuple, list[np.ndarray]] = {}
        self.totals: dict[tuple, np.ndarray] = {}  # the influences' cluster totals (core/stats/analytic.py)

    def replicates(self, key: tuple) -> np.ndarray:
        return np.concatenate(self.reps[key]) if key in self.reps else np.array([])


def _pooled(u: Universe, panels: dict, weights: np.ndarray, keys: set[tuple] | None = None) -> dict[tuple, np.ndarray]:
    """ROC-AUC of every cell, panel and mean member (of ``keys`` only, when given) under a weight matrix
    (B, attempts) (vectorised)."""
    out: dict[tuple, np.ndarray] = {}
    for key, cell in u.cells.items():
        if keys is None or ("cell", *key) in keys:
            out[("cell", *key)] = m.roc_auc(cell.y, cell.p, sample_weight=weights[:, cell.index])
    for condition, panel in panels.items():
        if not panel.members:
            continue
        if keys is None or ("panel", condition) in keys:
            wp = weights[:, panel.items]
            out[("panel", condition)] = m.roc_auc(u.y[panel.items], panel.score, sample_weight=wp)
        if keys is None or ("mean_member", condition) in keys:
            out[("mean_member", condition)] = np.mean([out[("cell", j, condition)] for j in panel.members], axis=0)
    return out


def _per_problem_auc(y: np.ndarray, p: np.ndarray, problem: np.ndarray, n_problems: int) -> np.ndarray:
    """The ROC-AUC of each problem's attempts, (P,): NaN where a problem has one label only, or no attempt."""
    out = np.full(n_problems, np.nan)
    order = np.argsort(problem, kind="stable")
    bounds = np.searchsorted(problem[order], np.arange(n_problems + 1), side="left")
    for q in np.flatnonzero(np.diff(bounds)):
        rows = order[bounds[q] : bounds[q + 1]]
        if y[rows].min() != y[rows].max():  # both labels
            out[q] = m.roc_auc(y[rows], p[rows])
    return out


def _per_problem(u: Universe, panels: dict, n_problems: int) -> dict[tuple, np.ndarray]:
    """Each cell's and each panel's per-problem ROC-AUCs, (P,) each: computed once, the equal-weights scheme's
    resamples only weight the problems (:func:`_macro`). A matrix of one weight row per problem over the attempts
    was (P, n) floats per call, and per block of resamples: 160 MB a cell at 10^6 attempts of 20 problems, and
    P x n at CodeNet's 4,000 problems."""
    out: dict[tuple, np.ndarray] = {}
    for key, cell in u.cells.items():
        out[("cell", *key)] = _per_problem_auc(cell.y, cell.p, u.problem[cell.index], n_problems)
    for condition, panel in panels.items():
        if panel.members:
            out[("panel", condition)] = _per_problem_auc(
                u.y[panel.items], panel.score, u.problem[panel.items], n_problems
            )
    return out


def _macro(per_problem: dict[tuple, np.ndarray], panels: dict, counts: np.ndarray) -> dict[tuple, np.ndarray]:
    """Mean of per-problem ROC-AUCs (problems with both labels) under problem counts (B, problems)."""

    def macro(values: np.ndarray) -> np.ndarray:
        defined = np.isfinite(values)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ np.where(defined, values, 0.0)) / (counts @ defined.astype(np.float64))

    out = {key: macro(values) for key, values in per_problem.items() if key[0] == "cell"}
    for condition, panel in panels.items():
        if not panel.members:
            continue
        out[("panel", condition)] = macro(per_problem[("panel", condition)])
        out[("mean_member", condition)] = np.mean([out[("cell", j, condition)] for j in panel.members], axis=0)
    return out


def _points(u: Universe, panels: dict, test: np.ndarray, per_problem: dict[tuple, np.ndarray]) -> dict[str, dict]:
    """Every scheme's point estimates: ROC-AUC on every attempt (trajectory and problem resampling), on the
    never-inspected ones, and the mean of per-problem ROC-AUCs (equal weights)."""
    n = len(u.trajectory)
    every = _pooled(u, panels, np.ones((1, n)))
    values = {
        "trajectory": every,
        "problem": every,
        "never_inspected": _pooled(u, panels, test[None, :]),
        "equal_weights": _macro(per_problem, panels, np.ones((1, u.n_problems))),
    }
    return {scheme: {k: float(v[0]) for k, v in found.items()} for scheme, found in values.items()}


def _analytic_keys(u: Universe, panels: dict, test: np.ndarray, analytic_from: int | None) -> dict[str, set[tuple]]:
    """The figures with analytic intervals, by scheme: under trajectory and problem resampling a cell of at least
    ``analytic_from`` predictions (as in the measurement, core/measurement/measure.py), on the never-inspected part
    a cell with at least ``analytic_from`` predictions there (the figure is computed on them, a tenth of the cell:
    the switch point's coverage is shown on the predictions a figure is computed on); a panel and its mean member
    when every member's cell is one."""
    if analytic_from is None:
        return {scheme: set() for scheme in ANALYTIC_SCHEMES}
    whole: set[tuple] = {("cell", *key) for key, cell in u.cells.items() if len(cell.p) >= analytic_from}
    tested: set[tuple] = {
        ("cell", *key) for key, cell in u.cells.items() if np.count_nonzero(test[cell.index]) >= analytic_from
    }
    for keys in (whole, tested):
        for condition, panel in panels.items():
            if panel.members and all(("cell", j, condition) in keys for j in panel.members):
                keys |= {("panel", condition), ("mean_member", condition)}
    return {"trajectory": whole, "problem": whole, "never_inspected": tested}


def _analytic_totals(u: Universe, panels: dict, test: np.ndarray, exact: dict[str, set[tuple]]) -> dict[str, dict]:
    """The cluster totals of the ROC-AUC influences (DeLong's placements, core/stats/analytic.py) of each scheme's
    ``exact`` figures, as the measurement keeps them (measure.py :class:`Analytic`): every attempt clustered by
    trajectory and by problem (the two schemes' figures are the same: a cell of analytic_from predictions), the
    never-inspected attempts by trajectory. A mean member's totals are the mean of its members'."""
    every, never = Analytic(u), Analytic(u)

    def add(key: tuple, index: np.ndarray, y: np.ndarray, p: np.ndarray) -> None:
        if key in exact["trajectory"]:
            every.add(key, index, an.roc_auc_influence(y, p))
        if key in exact["never_inspected"]:
            part = np.flatnonzero(test[index] > 0)
            never.add(key, index[part], an.roc_auc_influence(y[part], p[part]))

    for key, cell in u.cells.items():
        add(("cell", *key), cell.index, cell.y, cell.p)
    for condition, panel in panels.items():
        add(("panel", condition), panel.items, u.y[panel.items], panel.score)
    out = {"trajectory": every.trajectory, "problem": every.problem, "never_inspected": never.trajectory}
    for condition, panel in panels.items():
        for scheme, totals in out.items():
            if ("mean_member", condition) in exact[scheme]:
                totals[("mean_member", condition)] = np.mean(
                    [totals[("cell", j, condition)] for j in panel.members], axis=0
                )
    return out


def _sides(comparison: _Comparison, panels: dict) -> set[tuple]:
    """The figures a comparison's replicates are made of (a mean member's: its members' cells)."""
    keys = {comparison.plus} | ({comparison.minus} if comparison.minus is not None else set())
    for key in list(keys):
        if key[0] == "mean_member":
            keys |= {("cell", j, key[1]) for j in panels[key[1]].members}
    return keys


def _scheme_figures(
    u: Universe,
    panels: dict,
    test: np.ndarray,
    config: RobustnessConfig,
    points: dict[str, dict],
    per_problem: dict[tuple, np.ndarray],
    comparisons: list[_Comparison],
) -> dict[str, _Figures]:
    """Each scheme's figures for ``comparisons``: a comparison whose every side has analytic intervals
    (:func:`_analytic_keys`) takes its trajectory, problem and never-inspected intervals from the influences'
    cluster totals, and only the others' sides are resampled (drawn as the measurement draws them; none is drawn
    when every comparison is analytic, as at 10^6 attempts, where each block of resamples re-sorted every cell's
    scores). Equal weights always resamples the problems' per-problem ROC-AUCs: a (B, problems) product."""
    figures = {s: _Figures() for s in SCHEMES}
    for scheme, values in points.items():
        figures[scheme].point = values
    exact = _analytic_keys(u, panels, test, config.analytic_from)
    for scheme, totals in _analytic_totals(u, panels, test, exact).items():
        figures[scheme].totals = totals
    resampled: dict[str, set[tuple]] = {scheme: set() for scheme in ANALYTIC_SCHEMES}
    for comparison in comparisons:
        sides = _sides(comparison, panels)
        for scheme, keys in exact.items():
            if not sides <= keys:
                resampled[scheme] |= sides

    def add(scheme, values):
        for k, v in values.items():
            figures[scheme].reps.setdefault(k, []).append(v)

    by_trajectory = resampled["trajectory"] or resampled["never_inspected"]
    for w in cluster_weights(u.trajectory, config.resamples, config.seed) if by_trajectory else ():
        if resampled["trajectory"]:
            add("trajectory", _pooled(u, panels, w, resampled["trajectory"]))
        if resampled["never_inspected"]:
            add("never_inspected", _pooled(u, panels, w * test[None, :], resampled["never_inspected"]))
    problem_seed = config.seed + 1  # the measurement's problem resamples (core/measurement/measure.py)
    for w in cluster_weights(u.problem, config.resamples, problem_seed) if resampled["problem"] else ():
        add("problem", _pooled(u, panels, w, resampled["problem"]))
    for counts in cluster_counts(u.n_problems, config.resamples, problem_seed):
        add("equal_weights", _macro(per_problem, panels, counts))
    return figures


@dataclass
class _Comparison:
    kind: str
    judge: str
    condition: str
    versus: str
    plus: tuple  # the claimed side's key
    minus: tuple | None  # the other side's key; None: compared with 0.5
    n: int

    def estimate(self, values: dict) -> float:
        if self.plus not in values or (self.minus is not None and self.minus not in values):
            return float("nan")
        return values[self.plus] - (0.5 if self.minus is None else values[self.minus])

    def replicates(self, figures: _Figures) -> np.ndarray:
        plus = figures.replicates(self.plus)
        if self.minus is None:
            return plus - 0.5
        minus = figures.replicates(self.minus)
        return plus - minus if len(plus) and len(plus) == len(minus) else np.array([])

    def totals(self, figures: _Figures) -> np.ndarray | None:
        """The cluster totals of the claimed side's influences minus the other side's (its variance is the paired
        difference's), or None when a side has no analytic interval."""
        if self.plus not in figures.totals or (self.minus is not None and self.minus not in figures.totals):
            return None
        plus = figures.totals[self.plus]
        return plus if self.minus is None else plus - figures.totals[self.minus]

    def text(self, conditions: list[str] | None = None, *, zero: bool = False, built: bool = False) -> str:
        """The claim in words, under ``conditions`` (default: its own); ``zero``: no direction is stated;
        ``built``: no difference by construction (the judge answers the same under the conditions)."""
        under = _listed(conditions or [self.condition])
        if self.kind == "above_chance":
            return f"{self.judge} at chance under {under}" if zero else f"{self.judge} above chance under {under}"
        if self.kind == "judge_vs_judge":
            if zero:
                return f"no difference between {self.judge} and {self.versus} under {under}"
            return f"{self.judge} above {self.versus} under {under}"
        if self.kind == "condition_vs_condition":
            if built:
                return f"{self.judge}: no difference between {under} by construction (the same answers under each)"
            if zero:
                return f"{self.judge}: no difference between {self.condition} and {self.versus}"
            return f"{self.judge}: {self.condition} above {self.versus}"
        if zero:
            return f"no difference between the panel and its mean member under {under}"
        return f"the panel above its mean member under {under}"


def _listed(names: list[str]) -> str:
    """ "a", "a and b", "a, b and c"."""
    return names[0] if len(names) == 1 else f"{', '.join(names[:-1])} and {names[-1]}"


def _comparisons(u: Universe, panels: dict, trajectory_point: dict) -> list[_Comparison]:
    """Every comparison, oriented: judge vs judge and condition vs condition by the trajectory point estimate."""
    out = []
    for (judge, condition), cell in u.cells.items():
        out.append(
            _Comparison("above_chance", judge, condition, "chance", ("cell", judge, condition), None, len(cell.p))
        )

    def oriented(kind, a, b, key_a, key_b, label_a, label_b, judge_of, condition_of):
        first = trajectory_point.get(key_a, np.nan) >= trajectory_point.get(key_b, np.nan)
        (hi, lo), (label_hi, label_lo) = (
            ((key_a, key_b), (label_a, label_b)) if first else ((key_b, key_a), (label_b, label_a))
        )
        return _Comparison(kind, judge_of(label_hi), condition_of(label_hi), label_lo, hi, lo, len(u.cells[hi[1:]].p))

    for condition in u.conditions:
        judges = [j for j in u.judges if (j, condition) in u.cells]
        for a, b in combinations(judges, 2):
            out.append(
                oriented(
                    "judge_vs_judge", a, b, ("cell", a, condition), ("cell", b, condition), a, b,
                    lambda label: label, lambda label, c=condition: c,
                )
            )  # fmt: skip
    for judge in u.judges:
        conditions = [c for c in u.conditions if (judge, c) in u.cells]
        for a, b in combinations(conditions, 2):
            out.append(
                oriented(
                    "condition_vs_condition", a, b, ("cell", judge, a), ("cell", judge, b), a, b,
                    lambda label, j=judge: j, lambda label: label,
                )
            )  # fmt: skip
    for condition, panel in panels.items():
        if len(panel.members) >= 2:
            out.append(
                _Comparison(
                    "panel_vs_mean_member",
                    PANEL,
                    condition,
                    "mean member",
                    ("panel", condition),
                    ("mean_member", condition),
                    len(panel.items),
                )
            )
    return out


def _stored(
    comparison: _Comparison,
    judge_metrics: pl.DataFrame | None,
    condition_effects: pl.DataFrame | None,
    panel: pl.DataFrame | None,
    per_problem: pl.DataFrame | None,
) -> dict[str, tuple]:
    """The (estimate, lo, hi, ci_method) the measurement tables already hold for this comparison, by scheme."""

    def one(frame, **match):
        if frame is None or frame.is_empty():
            return None
        part = frame.filter(pl.all_horizontal([pl.col(k) == v for k, v in match.items()]))
        return part.row(0, named=True) if len(part) else None

    def method(row: dict) -> str | None:  # the measurement's ci_method (measure.ANALYTIC, BOOTSTRAP), in our words
        named = row.get("ci_method")
        return None if named is None else (ANALYTIC if named.startswith("analytic") else BOOTSTRAP)

    found: dict[str, tuple] = {}
    if comparison.kind == "above_chance":
        row = one(judge_metrics, judge=comparison.judge, condition=comparison.condition, metric="roc_auc")
        if row is not None:
            found["trajectory"] = (row["value"] - 0.5, row["lo"] - 0.5, row["hi"] - 0.5, method(row))
            if row.get("lo_problem") is not None:
                problem = (row["value"] - 0.5, row["lo_problem"] - 0.5, row["hi_problem"] - 0.5, method(row))
                found["problem"] = problem
        row = one(per_problem, judge=comparison.judge, condition=comparison.condition, metric="roc_auc_macro")
        if row is not None:
            found["equal_weights"] = (row["value"] - 0.5, None, None, None)
    elif comparison.kind == "condition_vs_condition":
        claimed, other = comparison.condition, comparison.versus
        row = one(condition_effects, judge=comparison.judge, condition=f"{claimed} - {other}", metric="delta_roc_auc")
        if row is not None:
            found["trajectory"] = (row["value"], row["lo"], row["hi"], method(row))
        row = one(condition_effects, judge=comparison.judge, condition=f"{other} - {claimed}", metric="delta_roc_auc")
        if row is not None:
            found["trajectory"] = (-row["value"], -row["hi"], -row["lo"], method(row))
    elif comparison.kind == "panel_vs_mean_member":
        row = one(panel, judge=PANEL, condition=comparison.condition, metric="gain_over_mean_member")
        if row is not None:
            found["trajectory"] = (row["value"], row["lo"], row["hi"], method(row))
    return found


def _none_if_nan(value):
    return None if value is None or not np.isfinite(value) else float(value) + 0.0  # + 0.0: no "-0.00" in a report


def findings(
    predictions: pl.DataFrame | TableReader,
    design_split: pl.DataFrame,
    *,
    judge_metrics: pl.DataFrame | None = None,
    condition_effects: pl.DataFrame | None = None,
    panel: pl.DataFrame | None = None,
    per_problem: pl.DataFrame | None = None,
    perturbation_metrics: pl.DataFrame | None = None,
    perturbation_pairs: pl.DataFrame | None = None,
    attempts: pl.DataFrame | None = None,
    config: RobustnessConfig = RobustnessConfig(),
    perturbation: PerturbationConfig = PERTURBATION,
) -> pl.DataFrame:
    """One row per distinct finding (:data:`FINDINGS_SCHEMA`; see the module docstring). ``perturbation_pairs``
    (core/perturbation/stats.py ``judged_pairs``) and ``attempts`` (attempt_uid, participant, problem_id of the
    seeds) give the perturbation rows their four checks; without them those rows have the primary check only.
    ``predictions`` a frame, or a :class:`TableReader` of the table: its cells are read one at a time and only
    their arrays kept (:func:`_universe_of_cells`)."""
    rows: list[dict] = []
    reader = as_reader(predictions, "predictions")
    empty = isinstance(predictions, pl.DataFrame) and predictions.is_empty()  # a frame of no rows, maybe no columns
    if not empty and reader.keys("judge", "condition"):
        u = _universe_of_cells(reader, config)
        test = _test_mask(u, design_split).astype(np.float64)
        panels = {c: condition_panel(u, c) for c in u.conditions}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", m.UndefinedMetricWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean over members of an undefined replicate
            per_problem_aucs = _per_problem(u, panels, u.n_problems)
            points = _points(u, panels, test, per_problem_aucs)
            comparisons = _comparisons(u, panels, points["trajectory"])
            figures = _scheme_figures(u, panels, test, config, points, per_problem_aucs, comparisons)
        for comparison in comparisons:
            rows.append(_comparison_row(u, comparison, figures, config, judge_metrics, condition_effects, panel,
                                        per_problem))  # fmt: skip
    rows = _distinct(rows)
    rows += _perturbation_rows(perturbation_metrics, perturbation_pairs, attempts, design_split, config, perturbation)
    holm(rows, ALPHA)
    return pl.DataFrame([{k: r.get(k) for k in FINDINGS_SCHEMA} for r in rows], schema=FINDINGS_SCHEMA)


def _same_answers(u: Universe, judge: str, a: str, b: str) -> bool:
    """Whether ``judge`` answered exactly the same attempts with exactly the same p under conditions a and b."""
    first, second = u.cells.get((judge, a)), u.cells.get((judge, b))
    return (
        first is not None
        and second is not None
        and np.array_equal(first.index, second.index)
        and np.array_equal(first.p, second.p)
    )


def _comparison_row(u, comparison, figures, config, judge_metrics, condition_effects, panel, per_problem) -> dict:
    stored = _stored(comparison, judge_metrics, condition_effects, panel, per_problem)
    built = comparison.kind == "condition_vs_condition" and _same_answers(
        u, comparison.judge, comparison.condition, comparison.versus
    )
    row: dict[str, Any] = {
        "kind": comparison.kind,
        "judge": comparison.judge,
        "condition": comparison.condition,
        "versus": comparison.versus,
        "metric": "roc_auc",
        "resampling": "trajectory",
        "n": comparison.n,
        "_comparison": comparison,
        "_conditions": [comparison.condition],
        "_built": built,
    }
    for scheme in SCHEMES:
        estimate = comparison.estimate(figures[scheme].point)
        totals = comparison.totals(figures[scheme])
        replicates = comparison.replicates(figures[scheme]) if totals is None else np.array([])
        if totals is not None:
            (lo, hi), method = an.interval_from_totals(estimate, totals, config.level), ANALYTIC
        else:
            (lo, hi), method = interval(replicates, config.level), BOOTSTRAP
        if scheme in stored:
            estimate = stored[scheme][0]
            if stored[scheme][1] is not None:
                lo, hi = stored[scheme][1], stored[scheme][2]
                method = stored[scheme][3] or method
        prefix = PREFIX[scheme]
        row[f"{prefix}estimate"] = _none_if_nan(estimate)
        row[f"{prefix}lo"], row[f"{prefix}hi"] = _none_if_nan(lo), _none_if_nan(hi)
        row[f"{prefix}status"] = BY_CONSTRUCTION if built else status(row[f"{prefix}lo"], row[f"{prefix}hi"])
        row[f"{prefix}ci_method"] = method if row[f"{prefix}lo"] is not None else None
        if scheme == "trajectory" and not built:
            row["p_value"] = (
                an.p_from_totals(estimate, totals) if totals is not None else bootstrap_p(estimate, replicates)
            )
        elif scheme == "trajectory":
            row["p_value"] = None
    row["family"] = None if built or row["p_value"] is None else "roc_auc"
    row["widening"] = _widening(row)
    return row


def _is_zero(row: dict) -> bool:
    return row["estimate"] == 0 and row["lo"] == 0 and row["hi"] == 0


def _distinct(rows: list[dict]) -> list[dict]:
    """Rows that give the same result under several conditions merged into one naming them all (module docstring);
    the finding's words written last, once its conditions are known."""
    numbers = [f"{PREFIX[s]}{f}" for s in SCHEMES for f in ("estimate", "lo", "hi", "status")] + ["n", "p_value"]

    def key(row: dict) -> tuple:
        if row["_built"]:  # every by-construction comparison of a judge: one row
            return ("built", row["judge"])
        if row["kind"] == "condition_vs_condition":
            return ("pair", row["judge"], row["condition"], row["versus"])
        return (row["kind"], row["judge"], row["versus"], *(_rounded(row[c]) for c in numbers))

    merged: dict[tuple, dict] = {}
    for row in rows:
        k = key(row)
        if k not in merged:
            merged[k] = {**row, "_pairs": 1}
            if row["_built"]:
                merged[k]["_conditions"] = [row["condition"], row["versus"]]
            continue
        into = merged[k]
        into["_pairs"] += 1
        for condition in [row["condition"], row["versus"]] if row["_built"] else [row["condition"]]:
            if condition not in into["_conditions"]:
                into["_conditions"].append(condition)
    out = []
    for row in merged.values():
        comparison, conditions = row["_comparison"], sorted(row["_conditions"], key=_condition_order)
        if row["_built"]:
            row["condition"], row["versus"] = ", ".join(conditions), "each other"
        elif row["kind"] != "condition_vs_condition":
            row["condition"] = ", ".join(conditions)
        row["shared_by"] = row["_pairs"]
        row["finding"] = comparison.text(
            conditions if row["kind"] != "condition_vs_condition" or row["_built"] else None,
            zero=_is_zero(row),
            built=row["_built"],
        )
        out.append({k: v for k, v in row.items() if not k.startswith("_")})
    return out


def _rounded(value):
    return round(value, 12) if isinstance(value, float) else value


def _widening(row: dict) -> float | None:
    if None in (row["lo"], row["hi"], row["problem_lo"], row["problem_hi"]) or row["hi"] <= row["lo"]:
        return None
    return (row["problem_hi"] - row["problem_lo"]) / (row["hi"] - row["lo"])


def _perturbation_rows(
    perturbation_metrics: pl.DataFrame | None,
    pairs: pl.DataFrame | None,
    attempts: pl.DataFrame | None,
    design_split: pl.DataFrame,
    config: RobustnessConfig,
    perturbation: PerturbationConfig,
) -> list[dict]:
    """Arm discrimination - 0.5 per judge and subset: the seed-bootstrap figure of ``perturbation_metrics`` and, from
    the per-mutant pairs, the same under problem resampling, equal problem weights and the never-inspected part."""
    if perturbation_metrics is None or perturbation_metrics.is_empty() or "metric" not in perturbation_metrics.columns:
        return []
    checks = _perturbation_checks(pairs, attempts, design_split, config, perturbation)
    rows = []
    for r in perturbation_metrics.filter(pl.col("metric") == "arm_discrimination").iter_rows(named=True):
        lo = _none_if_nan(None if r["lo"] is None else r["lo"] - 0.5)
        hi = _none_if_nan(None if r["hi"] is None else r["hi"] - 0.5)
        row: dict[str, Any] = {
            "kind": "perturbation_arm",
            "judge": r["judge"],
            "condition": r["subset"],
            "versus": "control arm",
            "metric": "arm_discrimination",
            "resampling": "mutation seed",
            "estimate": _none_if_nan(None if r["value"] is None else r["value"] - 0.5),
            "lo": lo,
            "hi": hi,
            "status": status(lo, hi),
            "widening": None,
            "n": r.get("n"),
            "shared_by": 1,
            "family": "arm_discrimination",
            "p_value": None,
        }
        found = checks.get((r["judge"], r["subset"]))
        for scheme in SCHEMES[1:]:
            prefix = PREFIX[scheme]
            if found is None:
                row.update({f"{prefix}estimate": None, f"{prefix}lo": None, f"{prefix}hi": None})
                row[f"{prefix}status"] = "not computed"
                continue
            estimate, s_lo, s_hi = found[scheme]
            row[f"{prefix}estimate"], row[f"{prefix}lo"], row[f"{prefix}hi"] = estimate, s_lo, s_hi
            row[f"{prefix}status"] = status(s_lo, s_hi)
        if found is not None:
            row["p_value"] = found["p_value"]
            row["widening"] = _widening(row)
        if row["p_value"] is None:  # the replicates do not vary (e.g. 0.5 [0.5, 0.5]): the row tests nothing
            row["family"] = None
        for scheme in SCHEMES:  # the seeds' and problems' resamples of the mutants (hundreds, not 10^6)
            row[f"{PREFIX[scheme]}ci_method"] = BOOTSTRAP if row[f"{PREFIX[scheme]}lo"] is not None else None
        zero = row["estimate"] == 0 and row["lo"] == 0 and row["hi"] == 0
        verb = "scored no differently from" if zero else "scored below"
        row["finding"] = f"{r['judge']}: semantic mutants {verb} control mutants ({r['subset']})"
        rows.append(row)
    return rows


def _perturbation_checks(
    pairs: pl.DataFrame | None,
    attempts: pl.DataFrame | None,
    design_split: pl.DataFrame,
    config: RobustnessConfig,
    perturbation: PerturbationConfig,
) -> dict[tuple[str, str], dict]:
    """Per (judge, subset): (estimate - 0.5, lo - 0.5, hi - 0.5) under problem resampling, equal problem weights and
    the never-inspected part, and the bootstrap p of the mutation-seed replicates."""
    if pairs is None or pairs.is_empty() or attempts is None or attempts.is_empty():
        return {}
    seeds = attempts.select(pl.col("attempt_uid").alias("seed_uid"), "participant", "problem_id").unique("seed_uid")
    out: dict[tuple[str, str], dict] = {}
    for judge in sorted(set(pairs["judge"].to_list())):
        rows = primary(pairs.filter(pl.col("judge") == judge), perturbation.seed_cut).sort("seed_uid", "mutant_uid")
        rows = rows.join(seeds, on="seed_uid", how="left")
        if rows.is_empty() or rows["problem_id"].null_count():
            continue
        seed_code = cluster_codes(rows["seed_uid"].to_numpy())
        problem = cluster_codes(rows["problem_id"].to_numpy())
        test = (attempt_splits(rows, design_split, source="perturbation pairs") == NEVER_INSPECTED).to_numpy()
        n_problems = int(problem.max()) + 1
        one_hot = (problem[None, :] == np.arange(n_problems)[:, None]).astype(np.float64)
        stats = perturbation_statistics(rows, perturbation.drop_cut, perturbation.seed_cut)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", m.UndefinedMetricWarning)
            warnings.simplefilter("ignore", RuntimeWarning)
            for subset in ("all", "loop", "confirmed"):
                mask, auc = stats[("arm_discrimination", subset)]
                if not mask.any():
                    continue

                def macro(counts: np.ndarray, mask=mask, auc=auc, one_hot=one_hot) -> np.ndarray:
                    per_problem = np.asarray(auc(one_hot[:, mask]), dtype=np.float64)  # NaN: one arm only
                    defined = np.isfinite(per_problem)
                    with np.errstate(invalid="ignore", divide="ignore"):
                        return (counts @ np.where(defined, per_problem, 0.0)) / (counts @ defined.astype(np.float64))

                seed_reps = np.concatenate(
                    [auc(w[:, mask]) for w in cluster_weights(seed_code, perturbation.n_resamples, perturbation.seed)]
                )
                problem_reps = np.concatenate(
                    [auc(w[:, mask]) for w in cluster_weights(problem, config.resamples, config.seed + 1)]
                )
                equal_reps = np.concatenate(
                    [macro(c) for c in cluster_counts(n_problems, config.resamples, config.seed + 1)]
                )
                never_reps = np.concatenate(
                    [
                        auc((w * test[None, :])[:, mask])
                        for w in cluster_weights(seed_code, config.resamples, config.seed)
                    ]
                )
                ones = np.ones((1, int(mask.sum())))
                points = {
                    "problem": float(np.asarray(auc(ones))[0]),
                    "equal_weights": float(macro(np.ones((1, n_problems)))[0]),
                    "never_inspected": float(np.asarray(auc(test[None, mask].astype(np.float64)))[0]),
                }
                found: dict[str, Any] = {"p_value": bootstrap_p(points["problem"] - 0.5, seed_reps - 0.5)}
                for scheme, reps in (
                    ("problem", problem_reps),
                    ("equal_weights", equal_reps),
                    ("never_inspected", never_reps),
                ):
                    lo, hi = interval(reps, config.level)
                    found[scheme] = (
                        _none_if_nan(points[scheme] - 0.5),
                        _none_if_nan(lo - 0.5),
                        _none_if_nan(hi - 0.5),
                    )
                out[(judge, subset)] = found
    return out


def widening_by_judge(findings_table: pl.DataFrame) -> pl.DataFrame:
    """Per judge: the mean factor by which problem resampling widens its ROC-AUC intervals over trajectory
    resampling (its above-chance rows, one per condition), and the conditions it is averaged over."""
    part = findings_table.filter((pl.col("kind") == "above_chance") & pl.col("widening").is_not_null())
    return (
        part.group_by("judge")
        .agg(pl.col("widening").mean().alias("widening"), pl.col("shared_by").sum().alias("conditions"))
        .sort("judge")
    )
