"""The measurement group's tables from one predictions table (seed study IV-C, VI-A).

:func:`measure` takes the long predictions table (one row per attempt x judge x
condition with p_accept and the label) and returns every table of the group in
long form (judge, condition, metric, value, lo, hi, n). All intervals come from
one set of trajectory-bootstrap resamples shared by every judge and condition,
so every difference (between conditions, between the panel and its members) is
paired: both sides are computed on the same resampled attempts.

Conventions:
* folds and resamples are seeded (``MeasurementConfig.seed``): the same inputs
  give the same tables;
* MCCoof's interval resamples the pooled out-of-fold decisions (the thresholds
  are selected once, by the cross-validation); the in-fold MCC re-selects its
  threshold in every resample, as its definition says;
* the problem-clustered re-estimation (resampling problems instead of
  trajectories) is given beside the main interval as lo_problem/hi_problem;
* abstention (core/judging/models.py): a judge with nothing to go on for an attempt
  abstains, and the predictions hold only answered rows. Every judge x
  condition is scored on the attempts it answered, and judge_metrics gives its
  ``coverage`` (answered / attempts it was asked about, ``n`` the latter),
  ``answered`` and ``abstained`` (counts) as rows of their own, also for a judge
  that answered nothing (see :func:`measure`'s ``outcomes``);
* who is pooled: one rule (core/dynamics/pooling.py) on the subset each pooled figure
  is computed on. A judge that answered nothing there, or whose answers there
  are all one value, is left out, and the table says so in a row of metric
  ``excluded_no_answers`` or ``excluded_constant`` (value: its one value; n:
  its answers on the subset; ``note``: who, why, on which attempts). The
  subsets: the condition (panel members, in the panel and agreement tables);
  the attempts every member answered (Fleiss' kappa and the means over pairs:
  a member constant there is left out of those figures, which are then computed
  on the attempts every remaining member answered); the attempts both judges of
  a pair answered (the pair's row ``a~b`` is replaced by the note row);
* the panel score of an attempt is the unweighted mean of the members'
  percentile ranks over the members that answered it (each member ranked within
  its own answers; agreement.answered_panel_score), scored like a judge on the
  attempts at least one member answered; ``members`` says how many judges it
  holds. Its gain over the mean member compares it with the members' own
  ROC-AUCs (each on the attempts it answered, as in judge_metrics); the best
  member is the member with the highest point ROC-AUC;
* agreement: a pair of members on the attempts both answered; the panel-wide
  figures (Fleiss' kappa, mean kappa and rho over the pairs, rho - kappa) on the
  attempts every one of their judges answered, so they share one set of
  attempts (``n``).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass
from itertools import combinations
from typing import Any, NamedTuple, cast

import numpy as np
import polars as pl
from numpy.typing import ArrayLike

from cojudge_assets.core.constants import CONDITIONS, SEED
from cojudge_assets.core.dynamics import pooling
from cojudge_assets.core.measurement import agreement, calibration
from cojudge_assets.core.stats import analytic as an
from cojudge_assets.core.stats import metrics as m
from cojudge_assets.core.stats.bootstrap import cluster_weights, column_cluster_codes, interval

LONG_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "metric": pl.String,
    "value": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
    "ci_method": pl.String,  # which method made (lo, hi): BOOTSTRAP or ANALYTIC; null on a row without an interval
}
BOOTSTRAP = "bootstrap (trajectory)"
ANALYTIC = "analytic (clustered by trajectory)"
POOLED_SCHEMA = {**LONG_SCHEMA, "note": pl.String}  # the panel and agreement tables: note rows say who is left out
PANEL = "panel"


@dataclass(frozen=True)
class MeasurementConfig:
    folds: int = 10
    resamples: int = 2000
    seed: int = SEED
    confident: float = 0.2  # confident errors: p <= 0.2 on accepted, p >= 1 - 0.2 on rejected
    problem_resamples: int = 2000
    # a judge x condition with at least this many predictions gets analytic intervals (core/stats/analytic.py),
    # and so does a paired difference or panel figure all of whose cells do, and an agreement figure (kappa, rho,
    # Fleiss' kappa) on at least this many attempts; below it, the bootstrap
    analytic_from: int = 5000


@dataclass
class Cell:
    """One judge under one condition, on the attempts it has."""

    judge: str
    condition: str
    index: np.ndarray  # positions in the attempt universe
    p: np.ndarray
    y: np.ndarray


@dataclass(frozen=True)
class ScalarMetric:
    """One scalar metric of a judge on its attempts: ``fn(y, p, decisions, sample_weight)`` (``decisions`` the
    out-of-fold 0/1 decisions, None for a caller that asks only the metrics of the scores; ``sample_weight``
    None, a vector or a bootstrap matrix, as core/stats/metrics.py), and where it is used. Every table, check and
    report section that lists metric names derives its list from :data:`SCALAR_METRICS`."""

    fn: Callable[[np.ndarray, np.ndarray, np.ndarray | None, Any], Any]
    higher_is_better: bool | None  # None: no direction (a prevalence, a mean score)
    headline: bool  # a column of the headline table (the seed study's Table VI)
    instrument: bool  # compares judges as instruments: problem-bootstrapped, tracked across runs, contamination
    # whether the metric gets an interval (lo, hi). The in-fold MCC does not: its threshold is selected on the
    # attempts it scores, so it is optimistic by construction, about half a standard error for a judge whose MCC
    # curve is flat near its top at every n, and neither interval covers it (analytic 0.932, the trajectory
    # bootstrap 0.860 at 5,000 attempts: docs/methodology.md, "The in-fold MCC"); the out-of-fold MCC carries one
    interval: bool = True


SCALAR_METRICS: dict[str, ScalarMetric] = {
    "roc_auc": ScalarMetric(lambda y, p, d, w: m.roc_auc(y, p, sample_weight=w), True, True, True),
    "pr_auc": ScalarMetric(lambda y, p, d, w: m.average_precision(y, p, sample_weight=w), True, True, True),
    "log_loss": ScalarMetric(lambda y, p, d, w: m.log_loss(y, p, sample_weight=w), False, True, True),
    "brier": ScalarMetric(lambda y, p, d, w: m.brier(y, p, sample_weight=w), False, True, True),
    "ece15": ScalarMetric(
        lambda y, p, d, w: calibration.ece(y, p, n_bins=calibration.ECE_BINS, sample_weight=w), False, True, True
    ),
    "mcc_in_fold": ScalarMetric(
        lambda y, p, d, w: m.in_fold_mcc(y, p, sample_weight=w), True, True, False, interval=False
    ),
    "mcc_oof": ScalarMetric(lambda y, p, d, w: _mcc_oof(y, d, w), True, True, True),
    "base_rate": ScalarMetric(lambda y, p, d, w: m.weighted_mean(y, sample_weight=w), None, False, False),
    "mean_p": ScalarMetric(lambda y, p, d, w: m.weighted_mean(p, sample_weight=w), None, False, False),
}
NO_FOLDS = (
    "not measured: out-of-fold decisions need at least 2 trajectories (participant x problem) to form folds, "
    "got 1: mcc_oof, threshold_oof_median, mcc_drop_in_fold_to_oof, the out-of-fold recalibration and the "
    "decision counts (tp, fp, tn, fn) are left out (NaN or no row)"
)


def _mcc_oof(y, decisions, w):
    """MCC of the out-of-fold decisions; NaN (one per weight row) when there are none (fewer than 2 folds)."""
    if decisions is None:
        return float("nan") if w is None else np.full(np.shape(w)[0], np.nan)
    return m.mcc(y, decisions, sample_weight=w)


def oof_decisions(y, p, folds) -> tuple[np.ndarray | None, dict[int, float]]:
    """metrics.oof_decisions, or (None, {}) when ``folds`` hold fewer than 2 distinct folds (a one-trajectory
    study: nothing to threshold out of fold; the metrics that need them are NaN, NO_FOLDS)."""
    if len(np.unique(folds)) < 2:
        return None, {}
    return m.oof_decisions(y, p, folds=folds)


def folds_of(trajectory: np.ndarray, config: MeasurementConfig) -> np.ndarray:
    """Fold per attempt, grouped by trajectory; one fold (all 0) when there is a single trajectory."""
    if len(np.unique(trajectory)) < 2:
        return np.zeros(len(trajectory), dtype=np.int64)
    return m.grouped_folds(trajectory, n_splits=config.folds, seed=config.seed)


INFLUENCES: dict[str, Callable[[np.ndarray, np.ndarray, np.ndarray], np.ndarray]] = {
    # (y, p, out-of-fold decisions) -> each attempt's influence on the metric (core/stats/analytic.py)
    "roc_auc": lambda y, p, d: an.roc_auc_influence(y, p),
    "pr_auc": lambda y, p, d: an.average_precision_influence(y, p),
    "log_loss": lambda y, p, d: an.log_loss_influence(y, p),
    "brier": lambda y, p, d: an.mean_influence((p - y) ** 2),
    "ece15": lambda y, p, d: an.ece_influence(y, p, calibration.ECE_BINS),
    "mcc_oof": lambda y, p, d: an.mcc_influence(y, d) if d is not None else np.full(len(y), np.nan),
    "base_rate": lambda y, p, d: an.mean_influence(y),
    "mean_p": lambda y, p, d: an.mean_influence(p),
}
HEADLINE_METRICS = tuple(name for name, metric in SCALAR_METRICS.items() if metric.headline)
INSTRUMENT_METRICS = tuple(name for name, metric in SCALAR_METRICS.items() if metric.instrument)
INTERVAL_METRICS = tuple(name for name, metric in SCALAR_METRICS.items() if metric.interval)  # resampled or analytic


def cell_metric(name: str, cell: Cell, w, decisions: np.ndarray | None):
    """Metric ``name`` of :data:`SCALAR_METRICS` on one cell (under weights ``w``, None for the point estimate)."""
    return SCALAR_METRICS[name].fn(cell.y, cell.p, decisions, w)


UNIVERSE_COLUMNS = ("attempt_uid", "y", "participant", "problem_id", "turn", "evidence")
PER_CELL_TABLES = ("judge_metrics", "scale_validity", "per_problem", "consistency", "error_profile", "recalibration")
CROSS_TABLES = ("agreement", "condition_effects", "panel")  # need several judges, or one judge under several conditions
CELL_FIGURES_CROSS = ("roc_auc",)  # what the cross-judge tables read of a cell's metrics (with roc_auc_evidence)


class Universe:
    """The attempts, their clusters and folds, and the predictions as cells.

    The attempts are ``attempts`` when given (columns :data:`UNIVERSE_COLUMNS`), else those of the predictions. The
    trajectories' resamples and folds are drawn over them, so a caller that measures one judge x condition over the
    same attempts gets the rows the whole measurement gives that cell (:func:`measure`)."""

    def __init__(self, predictions: pl.DataFrame, config: MeasurementConfig, attempts: pl.DataFrame | None = None):
        self._set_attempts(predictions if attempts is None else attempts, config)
        self._check_inside(predictions)
        self.cells: dict[tuple[str, str], Cell] = {}
        for (judge, condition), part in predictions.group_by("judge", "condition", maintain_order=True):
            self._add_cell(str(judge), str(condition), part)
        self._name_cells()

    def one_trajectory(self) -> bool:
        """Whether the cells' predictions hold fewer than two trajectories (no folds: what needs them is left out)."""
        answered = [self.trajectory[cell.index] for cell in self.cells.values()]
        return len(np.unique(np.concatenate(answered))) < 2 if answered else True

    @classmethod
    def from_slices(
        cls, slices: Iterable[tuple[str, str, pl.DataFrame]], config: MeasurementConfig, attempts: pl.DataFrame
    ) -> Universe:
        """The universe of ``attempts`` with one cell per ``(judge, condition, part)`` of ``slices`` (``part``:
        that cell's predictions, columns attempt_uid and p_accept), read one at a time: only the cells' arrays
        (an attempt's position and its p, 16 bytes a prediction) are kept, never the predictions' strings. The
        cells are those of ``Universe(predictions, config, attempts)`` on the slices' rows together."""
        u = cls.__new__(cls)
        u._set_attempts(attempts, config)
        u.cells = {}
        for judge, condition, part in slices:
            u._add_cell(judge, condition, part)
        u._name_cells()
        return u

    def _set_attempts(self, source: pl.DataFrame, config: MeasurementConfig) -> None:
        missing = set(UNIVERSE_COLUMNS) - set(source.columns)
        if missing:
            raise ValueError(f"measurement attempts: missing columns {sorted(missing)} (expected {UNIVERSE_COLUMNS})")
        attempts = _sorted_unique(source.select(UNIVERSE_COLUMNS), "attempt_uid")
        self.attempts = attempts
        self.y = attempts["y"].to_numpy().astype(np.int64)
        self.trajectory = column_cluster_codes([attempts["participant"], attempts["problem_id"]])
        self.problem = column_cluster_codes([attempts["problem_id"]])
        self.evidence = attempts["evidence"].fill_null(False).to_numpy().astype(bool)
        self.folds = folds_of(self.trajectory, config)  # one fold when one trajectory (NO_FOLDS)

    @property
    def n_trajectories(self) -> int:
        """The trajectories (codes 0..G-1 of ``trajectory``)."""
        return int(self.trajectory.max()) + 1 if len(self.trajectory) else 0

    @property
    def n_problems(self) -> int:
        """The problems (codes 0..P-1 of ``problem``)."""
        return int(self.problem.max()) + 1 if len(self.problem) else 0

    @property
    def uids(self) -> np.ndarray:
        """The attempts' uids in position order (made on demand: a million Python strings are ~80 MB)."""
        return self.attempts["attempt_uid"].to_numpy()

    def _check_inside(self, predictions: pl.DataFrame) -> None:
        known = self.attempts.select("attempt_uid")
        outside = predictions.select("attempt_uid").unique().join(known, on="attempt_uid", how="anti")
        if len(outside):
            raise ValueError(
                f"predictions: {len(outside)} attempts are not among the measured attempts "
                f"(e.g. {sorted(outside['attempt_uid'].to_list())[:3]}): the attempts must hold every predicted "
                "attempt_uid"
            )

    def _add_cell(self, judge: str, condition: str, part: pl.DataFrame) -> None:
        """The cell of ``part`` (its rows with a p): each attempt's position found by a binary search of the sorted
        universe (no hash join, no string sort), the rows in position order (that is, attempt_uid order)."""
        uids = self.attempts["attempt_uid"]
        found = uids.search_sorted(part["attempt_uid"], side="left").to_numpy().astype(np.int64)
        inside = found < len(uids)
        inside[inside] = (uids.gather(found[inside]) == part["attempt_uid"].filter(pl.Series(inside))).to_numpy()
        if not inside.all():
            outside = part["attempt_uid"].filter(pl.Series(~inside)).unique().sort()
            raise ValueError(
                f"predictions: {len(outside)} attempts are not among the measured attempts "
                f"(e.g. {outside.to_list()[:3]}): the attempts must hold every predicted attempt_uid"
            )
        p = part["p_accept"].to_numpy()
        answered = ~np.isnan(p)  # null (a float column's None) is nan in numpy: no answer
        order = np.argsort(found[answered], kind="stable")
        index, p = found[answered][order], p[answered][order]
        self.cells[(judge, condition)] = Cell(judge, condition, index, p, self.y[index])

    def _name_cells(self) -> None:
        self.judges = sorted({j for j, _ in self.cells})
        self.conditions = sorted({c for _, c in self.cells}, key=_condition_order)


def _sorted_unique(frame: pl.DataFrame, key: str) -> pl.DataFrame:
    """``frame`` with one row per ``key`` (any of its rows), sorted by it; ``frame`` itself when it is so already (a
    universe is: core/measurement/predictions.py ``universe_of``), found without hashing a million strings (at 10^6
    attempts ``unique`` and ``sort`` again held 400 MB more).

    >>> _sorted_unique(pl.DataFrame({"k": ["b", "a", "b"], "v": [1, 2, 1]}), "k").rows()
    [('a', 2), ('b', 1)]
    >>> _sorted_unique(pl.DataFrame({"k": ["a", "a"], "v": [1, 1]}), "k").rows(), _sorted_unique(pl.DataFrame(
    ...     schema={"k": pl.String}), "k").height
    ([('a', 1)], 0)
    """
    column = frame[key]
    repeated = len(column) > 1 and bool((column.slice(1) == column.head(len(column) - 1)).any())
    if column.is_sorted() and column.null_count() == 0 and not repeated:
        return frame
    return frame.unique(key).sort(key)


@dataclass(frozen=True)
class Excluded:
    """A note row: ``label`` (a judge, or a pair ``a~b``) left out of a pooled figure, and why."""

    label: str
    left_out: pooling.LeftOut
    note: str


@dataclass
class ConditionPanel:
    """The judges that form the panel under one condition, and the attempts each comparison uses."""

    condition: str
    members: list[str]  # the judges pooling keeps under the condition, in name order
    excluded: list[Excluded]  # left out of the panel (and so of every agreement figure)
    items: np.ndarray  # attempts at least one member answered
    score: np.ndarray  # the panel score on items
    shared: np.ndarray  # attempts every judge of shared_preds answered
    shared_preds: dict[str, np.ndarray]  # the members pooling keeps on the attempts every member answered: p on shared
    # the pairs pooling keeps: the attempts both answered, p_a and p_b on them
    pairs: dict[tuple[str, str], tuple[np.ndarray, np.ndarray, np.ndarray]]
    agreement_excluded: list[Excluded]  # members left out of the panel-wide agreement figures, and pairs left out


def _on(cell: Cell, index: np.ndarray) -> np.ndarray:
    """The cell's p on ``index``, a subset of the attempts it answered."""
    return cell.p[np.searchsorted(cell.index, index)]


def _answered_by_all(cells: list[Cell]) -> np.ndarray:
    shared = cells[0].index
    for cell in cells[1:]:
        shared = np.intersect1d(shared, cell.index)
    return shared


def condition_panel(u: Universe, condition: str) -> ConditionPanel:
    """The members under ``condition`` and who is left out of which figure (core/dynamics/pooling.py's rule on each
    figure's attempts, see the module docstring)."""
    cells = {j: u.cells[(j, condition)] for j in u.judges if (j, condition) in u.cells}
    names, out = pooling.split({j: c.p for j, c in cells.items()})
    excluded = [Excluded(x.judge, x, x.note(f"under {condition}")) for x in out]
    if not names:
        empty = np.array([], dtype=np.int64)
        return ConditionPanel(condition, [], excluded, empty, np.array([]), empty, {}, {}, [])
    members = [cells[j] for j in names]
    items, score = agreement.answered_panel_score({c.judge: (c.index, c.p) for c in members})
    shared = _answered_by_all(members)
    agreement_excluded = []
    kept = members
    if len(members) >= 2 and len(shared):
        kept_names, out = pooling.split({c.judge: _on(c, shared) for c in members})
        agreement_excluded += [
            Excluded(
                x.judge,
                x,
                x.note(f"on the attempts every member under {condition} answered")
                + " (left out of Fleiss' kappa and the means over pairs)",
            )
            for x in out
        ]
        kept = [cells[j] for j in kept_names]
        # leaving a judge out only adds attempts, on which the others' answers still vary
        shared = _answered_by_all(kept) if kept else np.array([], dtype=np.int64)
    pairs = {}
    for a, b in combinations(members, 2):
        both = np.intersect1d(a.index, b.index)
        pa, pb = _on(a, both), _on(b, both)
        _, out = pooling.split({a.judge: pa, b.judge: pb})
        label = f"{a.judge}~{b.judge}"
        if out:
            note = f"pair {label} left out: " + "; ".join(
                f"{x.judge}: {x.why('on the attempts both answered')}" for x in out
            )
            agreement_excluded.append(Excluded(label, out[0], note))
        else:
            pairs[(a.judge, b.judge)] = (both, pa, pb)
    shared_preds = {c.judge: _on(c, shared) for c in kept} if len(shared) else {}
    return ConditionPanel(condition, names, excluded, items, score, shared, shared_preds, pairs, agreement_excluded)


def _condition_order(condition: str) -> tuple[int, str]:
    return (CONDITIONS.index(condition) if condition in CONDITIONS else len(CONDITIONS), condition)


class Replicates:
    """Bootstrap replicates collected block by block, keyed by name."""

    def __init__(self) -> None:
        self.values: dict[tuple, list[np.ndarray]] = {}

    def add(self, key: tuple, block: ArrayLike) -> None:
        self.values.setdefault(key, []).append(np.asarray(block, dtype=np.float64))

    def get(self, key: tuple) -> np.ndarray:
        return np.concatenate(self.values[key]) if key in self.values else np.array([])


class Analytic:
    """Cluster totals of the influences (core/stats/analytic.py), keyed like :class:`Replicates`: by trajectory
    (the main interval) and by problem (lo_problem, hi_problem). A key present here has an analytic interval."""

    def __init__(self, u: Universe) -> None:
        self.u = u
        self.trajectories = u.n_trajectories
        self.problems = u.n_problems
        self.trajectory: dict[tuple, np.ndarray] = {}
        self.problem: dict[tuple, np.ndarray] = {}

    def add(self, key: tuple, index: np.ndarray, influence: np.ndarray) -> None:
        """The influences of a figure on the attempts ``index`` (positions in the universe)."""
        self.trajectory[key] = an.cluster_totals(influence, self.u.trajectory[index], self.trajectories)
        self.problem[key] = an.cluster_totals(influence, self.u.problem[index], self.problems)

    def __contains__(self, key: tuple) -> bool:
        return key in self.trajectory


class Interval(NamedTuple):
    """Where a row's (lo, hi) comes from: bootstrap replicates, or the cluster totals of analytic influences."""

    replicates: np.ndarray | None = None
    totals: np.ndarray | None = None


def _row(judge, condition, metric, value, replicates: np.ndarray | Interval, n, **extra) -> dict:
    source = replicates if isinstance(replicates, Interval) else Interval(replicates=replicates)
    if source.totals is not None:
        (lo, hi), method = an.interval_from_totals(float(value), source.totals), ANALYTIC
    elif source.replicates is not None and len(source.replicates):
        (lo, hi), method = interval(source.replicates), BOOTSTRAP
    else:
        (lo, hi), method = (float("nan"), float("nan")), None
    return {
        "judge": judge,
        "condition": condition,
        "metric": metric,
        "value": float(value),
        "lo": lo,
        "hi": hi,
        "n": int(n),
        "ci_method": method,
        **extra,
    }


def _either(boot: Replicates, exact: Analytic, key: tuple) -> Interval:
    """The analytic interval of ``key`` where it has one, else its bootstrap replicates."""
    return Interval(totals=exact.trajectory[key]) if key in exact else Interval(replicates=boot.get(key))


def _difference(boot: Replicates, exact: Analytic, plus: tuple, minus: tuple | list[tuple]) -> Interval:
    """``plus`` minus ``minus`` (a key, or the mean of several), paired: analytic when every side is."""
    minus = [minus] if isinstance(minus, tuple) else minus
    if plus in exact and all(k in exact for k in minus):
        return Interval(totals=exact.trajectory[plus] - np.mean([exact.trajectory[k] for k in minus], axis=0))
    return Interval(replicates=boot.get(plus) - np.mean([boot.get(k) for k in minus], axis=0))


def _note(judge, condition, metric, value, n, **extra) -> dict:
    """A row that counts or names something (coverage, members, a judge left out): no interval."""
    return {
        "judge": judge,
        "condition": condition,
        "metric": metric,
        "value": float(value),
        "lo": None,
        "hi": None,
        "n": int(n),
        "ci_method": None,
        **extra,
    }


def _influences(u: Universe, decisions, analytic_from: int, metrics: tuple[str, ...] = tuple(INFLUENCES)) -> Analytic:
    """The analytic figures: every scalar metric of ``metrics`` of each cell with at least ``analytic_from``
    predictions, and its roc_auc_evidence when its attempts with evidence number that many too (the figure is
    computed on them: below about 500 the analytic ROC-AUC covers less than 0.94, docs/methodology.md)."""
    exact = Analytic(u)
    for key, cell in u.cells.items():
        if len(cell.p) < analytic_from:
            continue
        for name in metrics:
            influence = INFLUENCES[name]
            exact.add((*key, name), cell.index, influence(cell.y, cell.p, decisions[key]))
        subset = u.evidence[cell.index]
        if np.count_nonzero(subset) >= analytic_from:
            on_evidence = an.roc_auc_influence(cell.y[subset], cell.p[subset])
            exact.add((*key, "roc_auc_evidence"), cell.index[subset], on_evidence)
    return exact


def _panel_influences(u: Universe, panel: ConditionPanel, exact: Analytic) -> None:
    if not panel.members or not all((j, panel.condition, "roc_auc") in exact for j in panel.members):
        return
    items, y, ev = panel.items, u.y[panel.items], u.evidence[panel.items]
    exact.add((PANEL, panel.condition, "roc_auc"), items, an.roc_auc_influence(y, panel.score))
    if all((j, panel.condition, "roc_auc_evidence") in exact for j in panel.members):
        influence = an.roc_auc_influence(y[ev], panel.score[ev])
        exact.add((PANEL, panel.condition, "roc_auc_evidence"), items[ev], influence)
    exact.add((PANEL, panel.condition, "pr_auc"), items, an.average_precision_influence(y, panel.score))


def _agreement_influences(panel: ConditionPanel, exact: Analytic, analytic_from: int) -> None:
    """The analytic agreement figures under one condition: a pair's kappa and rho on at least ``analytic_from``
    attempts both answered, and the panel-wide figures on at least ``analytic_from`` attempts every kept member
    answered. The median cuts are held fixed, as the bootstrap holds them (core/measurement/agreement.py)."""
    condition = panel.condition
    for (a, b), (both, pa, pb) in panel.pairs.items():
        if len(both) < analytic_from:
            continue
        kappa = an.cohen_kappa_influence(agreement.median_cut(pa), agreement.median_cut(pb))
        exact.add(("pair", a, b, condition, "kappa"), both, kappa)
        exact.add(("pair", a, b, condition, "rho"), both, an.spearman_influence(pa, pb))
    if len(panel.shared_preds) < 2 or len(panel.shared) < analytic_from:
        return
    preds = list(panel.shared_preds.values())  # in name order, as agreement.panel_agreement takes them
    cuts = [agreement.median_cut(p) for p in preds]
    pairs = list(combinations(range(len(preds)), 2))
    mean_kappa = np.mean([an.cohen_kappa_influence(cuts[i], cuts[j]) for i, j in pairs], axis=0)
    mean_rho = np.mean([an.spearman_influence(preds[i], preds[j]) for i, j in pairs], axis=0)
    for name, influence in (
        ("fleiss_kappa", an.fleiss_kappa_influence(np.column_stack(cuts))),
        ("mean_kappa", mean_kappa),
        ("mean_rho", mean_rho),
        ("rho_minus_kappa", mean_rho - mean_kappa),
    ):
        exact.add(("panel_agreement", condition, name), panel.shared, influence)


def _rank_correlation_influences(u: Universe, exact: Analytic, analytic_from: int) -> None:
    """A judge's rank correlation between two conditions, on at least ``analytic_from`` attempts answered under
    both."""
    for judge in u.judges:
        for a, b in combinations(u.conditions, 2):
            if (judge, a) in u.cells and (judge, b) in u.cells:
                shared, pa, pb = _across_conditions(u, judge, a, b)
                if len(shared) >= analytic_from:
                    exact.add(("rank_corr", judge, a, b), shared, an.spearman_influence(pa, pb))


def _across_conditions(u: Universe, judge: str, a: str, b: str) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """The attempts ``judge`` answered under both conditions, and its p under each on them."""
    ca, cb = u.cells[(judge, a)], u.cells[(judge, b)]
    shared = np.intersect1d(ca.index, cb.index)
    return shared, _on(ca, shared), _on(cb, shared)


def measure(
    predictions: pl.DataFrame | None,
    config: MeasurementConfig = MeasurementConfig(),
    outcomes: pl.DataFrame | None = None,
    *,
    attempts: pl.DataFrame | None = None,
    tables: tuple[str, ...] | None = None,
    progress: Callable[[str], object] | None = None,
    universe: Universe | None = None,
) -> dict[str, pl.DataFrame]:
    """Every table of the measurement group, in long form (only ``tables`` when given).

    ``universe`` (optional): the attempts and cells already built (:meth:`Universe.from_slices`, the cross-judge
    step's compact reader); ``predictions`` and ``attempts`` then serve only the consistency table.

    ``attempts`` (optional, columns :data:`UNIVERSE_COLUMNS`): the attempts the resamples and folds are drawn
    over (default: the predictions'). Measuring one judge x condition's predictions over the same attempts, with
    ``tables`` = :data:`PER_CELL_TABLES`, gives that cell's rows of the whole measurement: the per-judge tables
    can be computed partition by partition.

    ``outcomes`` (optional) has one row per attempt a judge was asked about under
    a condition (columns judge, condition, attempt_uid, status: ok, abstained or
    failed): the denominators of coverage. Without it, a judge is taken to have
    been asked about every attempt of the predictions under that condition (the
    attempts some judge answered), and every one it did not answer counts as
    abstained. ``progress`` gets a line at most every 10 s, in bootstrap resamples done (core/progress.py).
    """
    wanted = set(PER_CELL_TABLES + CROSS_TABLES if tables is None else tables)
    unknown = wanted - set(PER_CELL_TABLES + CROSS_TABLES)
    if unknown:
        raise ValueError(f"measure: unknown tables {sorted(unknown)} (known: {PER_CELL_TABLES + CROSS_TABLES})")
    if universe is None and predictions is None:
        raise ValueError("measure: give the predictions, or a universe built from them")
    if predictions is None and "consistency" in wanted:
        raise ValueError("measure: the consistency table reads the predictions (their code_sha256), got none")
    u = universe if universe is not None else Universe(cast(pl.DataFrame, predictions), config, attempts)
    # the cross-judge tables read of a cell only its ROC-AUC figures: for them alone no out-of-fold decision, no
    # other metric's influence or replicates, no problem bootstrap (at 10^6 attempts most of the step's CPU)
    per_cell = bool(wanted & set(PER_CELL_TABLES))
    decisions: dict[tuple[str, str], np.ndarray | None] = {}
    thresholds: dict[tuple[str, str], dict[int, float]] = {}
    for key, cell in u.cells.items():
        decisions[key], thresholds[key] = oof_decisions(cell.y, cell.p, u.folds[cell.index]) if per_cell else (None, {})
    cross = bool(wanted & set(CROSS_TABLES))
    panels = {c: condition_panel(u, c) for c in u.conditions} if cross else {}
    exact = _influences(u, decisions, config.analytic_from, tuple(INFLUENCES) if per_cell else CELL_FIGURES_CROSS)
    for panel in panels.values():
        _panel_influences(u, panel, exact)
        _agreement_influences(panel, exact, config.analytic_from)
    if cross:
        _rank_correlation_influences(u, exact, config.analytic_from)

    # nothing to resample when no judge answered (a partition of a judge that abstained on everything: coverage only)
    boot, problem_boot = (
        _bootstrap(u, config, decisions, panels, exact, pairs_of_conditions=cross, per_cell=per_cell, progress=progress)
        if u.cells
        else (Replicates(), Replicates())
    )

    makers: dict[str, Callable[[], pl.DataFrame]] = {
        # ci_method last: a table an older release wrote gains it at the end (defs/io.py), its columns keep their place
        "judge_metrics": lambda: pl.concat(
            [_judge_metrics(u, decisions, thresholds, boot, problem_boot, exact), _coverage(u, outcomes)]
        ).select(pl.exclude("ci_method"), "ci_method"),
        "scale_validity": lambda: _scale_validity(u, boot, decisions, exact),
        "agreement": lambda: _agreement(panels, boot, exact),
        "condition_effects": lambda: _condition_effects(u, panels, boot, exact),
        "panel": lambda: _panel(u, panels, boot, exact),
        "per_problem": lambda: _per_problem(u),
        "consistency": lambda: _consistency(cast(pl.DataFrame, predictions)),
        "error_profile": lambda: _error_profile(u, decisions, config),
        "recalibration": lambda: _recalibration(u),
    }
    return {name: make() for name, make in makers.items() if name in wanted}


def _bootstrap(
    u: Universe,
    config: MeasurementConfig,
    decisions,
    panels: dict[str, ConditionPanel],
    exact: Analytic,
    *,
    pairs_of_conditions: bool = True,
    per_cell: bool = True,
    progress: Callable[[str], object] | None = None,
) -> tuple[Replicates, Replicates]:
    """The trajectory and problem bootstrap replicates of every figure without an analytic interval.

    A cell with analytic intervals is still resampled when a cell it is compared with (the same judge under
    another condition, another judge under the same condition) is not: their paired difference is bootstrapped.
    """
    analytic = {key for key in u.cells if (*key, "roc_auc") in exact}
    resampled = {
        key
        for key in u.cells
        if key not in analytic
        or any(other not in analytic for other in u.cells if other[0] == key[0] or other[1] == key[1])
    }
    # the panel-wide agreement of every condition is resampled when some condition's is not analytic: their
    # differences (delta_fleiss_kappa) are paired
    panel_agreement = any(
        ("panel_agreement", c, "fleiss_kappa") not in exact
        for c, panel in panels.items()
        if len(panel.shared_preds) >= 2
    )
    rank_pairs = [
        (judge, a, b)
        for judge in (u.judges if pairs_of_conditions else ())
        for a, b in combinations(u.conditions, 2)
        if (judge, a) in u.cells and (judge, b) in u.cells and ("rank_corr", judge, a, b) not in exact
    ]

    # a cell's roc_auc_evidence without an analytic interval (too few attempts with evidence, but both labels among
    # them: else it is undefined either way, as at 10^6 generated attempts without evidence), or compared with one
    # (the same judge under another condition: delta_roc_auc_evidence is paired), in a cell resampled for it alone
    def evidence_resampled(key: tuple[str, str]) -> bool:
        cell = u.cells[key]
        return (*key, "roc_auc_evidence") not in exact and _both_labels(cell.y[u.evidence[cell.index]])

    evidence_only = {
        key
        for key in u.cells
        if key not in resampled
        and _both_labels(u.cells[key].y[u.evidence[u.cells[key].index]])
        and any(evidence_resampled(other) for other in u.cells if other[0] == key[0])
    }

    def panel_resampled(panel: ConditionPanel) -> bool:
        c = panel.condition
        evidence = (PANEL, c, "roc_auc_evidence") not in exact and _both_labels(
            u.y[panel.items][u.evidence[panel.items]]
        )
        return bool(panel.members) and (
            (PANEL, c, "roc_auc") not in exact
            or evidence
            or any(("pair", a, b, c, "kappa") not in exact for a, b in panel.pairs)
            or (panel_agreement and len(panel.shared_preds) >= 2)
        )

    # no resample is drawn when every figure is analytic (drawing them costs n x B numbers, in blocks)
    drawn = resampled or evidence_only or rank_pairs or any(map(panel_resampled, panels.values()))
    resamples = config.resamples if drawn else 0
    problem_resamples = (
        config.problem_resamples if per_cell and any((*k, "roc_auc") not in exact for k in u.cells) else 0
    )
    metrics = INTERVAL_METRICS if per_cell else CELL_FIGURES_CROSS
    from cojudge_assets.core.progress import Progress

    tracker = Progress(progress, resamples + problem_resamples, "measurement (bootstrap resamples)")
    boot = Replicates()
    for w in cluster_weights(u.trajectory, resamples, config.seed):
        tracker.advance(len(w))
        for key, cell in u.cells.items():
            subset = u.evidence[cell.index]
            if key in resampled:
                wc = w[:, cell.index]
                for name in metrics:
                    boot.add((*key, name), cell_metric(name, cell, wc, decisions[key]))
                we = wc[:, subset]
            elif key in evidence_only:
                we = w[:, cell.index[subset]]  # the attempts with evidence only: not the cell's n x B weights
            else:
                continue
            boot.add((*key, "roc_auc_evidence"), m.roc_auc(cell.y[subset], cell.p[subset], sample_weight=we))
        for panel in panels.values():
            if panel.members:
                _panel_replicates(u, panel, w, boot, exact, panel_agreement=panel_agreement)
        for judge, a, b in rank_pairs:
            shared, pa, pb = _across_conditions(u, judge, a, b)
            boot.add(("rank_corr", judge, a, b), agreement.spearman(pa, pb, w[:, shared]))
    problem_boot = Replicates()
    for w in cluster_weights(u.problem, problem_resamples, config.seed + 1):
        tracker.advance(len(w))
        for key, cell in u.cells.items():
            if (*key, "roc_auc") in exact:
                continue
            for name in INSTRUMENT_METRICS:
                problem_boot.add((*key, name), cell_metric(name, cell, w[:, cell.index], decisions[key]))
    tracker.finish()

    return boot, problem_boot


def _both_labels(y: np.ndarray) -> bool:
    """Whether ``y`` holds both labels: a ROC-AUC on it is defined."""
    return len(y) > 0 and bool(y.min() != y.max())


def _panel_replicates(
    u: Universe, panel: ConditionPanel, w: np.ndarray, boot: Replicates, exact: Analytic, *, panel_agreement: bool
) -> None:
    """One block of resamples ``w`` of the panel's ROC-AUC (unless analytic) and of the members' agreement (a pair's
    unless analytic; the panel-wide figures when ``panel_agreement``)."""
    condition, items = panel.condition, panel.items
    y, ev, wi = u.y[items], u.evidence[items], w[:, items]
    if (PANEL, condition, "roc_auc") not in exact:
        boot.add((PANEL, condition, "roc_auc"), m.roc_auc(y, panel.score, sample_weight=wi))
        boot.add((PANEL, condition, "pr_auc"), m.average_precision(y, panel.score, sample_weight=wi))
    if (PANEL, condition, "roc_auc_evidence") not in exact:  # analytic only with every member's (and so its own)
        boot.add((PANEL, condition, "roc_auc_evidence"), m.roc_auc(y[ev], panel.score[ev], sample_weight=wi[:, ev]))
    pooled = panel_agreement and len(panel.shared_preds) >= 2  # kept judges vary on shared: at least 2 attempts
    ws = w[:, panel.shared]
    on_shared = (
        {(pair["judge_a"], pair["judge_b"]): pair for pair in agreement.pairwise_agreement(panel.shared_preds, ws)}
        if pooled
        else {}
    )
    for (a, b), (both, pa, pb) in panel.pairs.items():
        if ("pair", a, b, condition, "kappa") in exact:
            continue
        if (a, b) in on_shared and np.array_equal(both, panel.shared):  # the same attempts: computed already
            pair = on_shared[(a, b)]
        else:
            pair = agreement.pairwise_agreement({a: pa, b: pb}, w[:, both])[0]
        boot.add(("pair", a, b, condition, "kappa"), pair["kappa"])
        boot.add(("pair", a, b, condition, "rho"), pair["rho"])
    if not pooled:
        return
    # panel_agreement's figures from the pairs on the shared attempts (it would recompute every pair)
    cuts = np.column_stack([agreement.median_cut(p) for p in panel.shared_preds.values()])
    mean_kappa = np.mean([pair["kappa"] for pair in on_shared.values()], axis=0)
    mean_rho = np.mean([pair["rho"] for pair in on_shared.values()], axis=0)
    for name, values in (
        ("fleiss_kappa", agreement.fleiss_kappa(cuts, ws)),
        ("mean_kappa", mean_kappa),
        ("mean_rho", mean_rho),
        ("rho_minus_kappa", mean_rho - mean_kappa),
    ):
        boot.add(("panel_agreement", condition, name), values)


def _coverage(u: Universe, outcomes: pl.DataFrame | None) -> pl.DataFrame:
    """Per judge x condition: coverage (answered / asked), answered and abstained, n = attempts asked about."""
    answered = {key: len(cell.p) for key, cell in u.cells.items()}
    if outcomes is None:
        asked_per_condition = {
            c: len(np.unique(np.concatenate([cell.index for (_, cc), cell in u.cells.items() if cc == c])))
            for c in u.conditions
        }
        counts = {key: (asked_per_condition[key[1]], asked_per_condition[key[1]] - n) for key, n in answered.items()}
    else:
        missing = {"judge", "condition", "attempt_uid", "status"} - set(outcomes.columns)
        if missing:
            raise ValueError(
                f"outcomes: missing columns {sorted(missing)} (expected judge, condition, attempt_uid, status)"
            )
        grouped = outcomes.group_by("judge", "condition").agg(
            pl.col("attempt_uid").n_unique().alias("asked"), (pl.col("status") == "abstained").sum().alias("abstained")
        )
        counts = {(r["judge"], r["condition"]): (r["asked"], r["abstained"]) for r in grouped.iter_rows(named=True)}
    rows = []
    for judge, condition in sorted(counts, key=lambda k: (k[0], _condition_order(k[1]))):
        asked, abstained = counts[(judge, condition)]
        n = answered.get((judge, condition), 0)
        extra = {"lo_problem": None, "hi_problem": None}
        for metric, value in (
            ("coverage", n / asked if asked else float("nan")),
            ("answered", n),
            ("abstained", abstained),
        ):
            rows.append(_note(judge, condition, metric, value, asked, **extra))
    schema = {**LONG_SCHEMA, "lo_problem": pl.Float64, "hi_problem": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def _judge_metrics(u: Universe, decisions, thresholds, boot, problem_boot, exact: Analytic) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        for name in SCALAR_METRICS:
            value = cell_metric(name, cell, None, decisions[key])
            if (*key, name) in exact:
                lo_p, hi_p = (
                    an.interval_from_totals(value, exact.problem[(*key, name)])
                    if name in INSTRUMENT_METRICS
                    else (float("nan"), float("nan"))
                )
            elif (*key, name) in problem_boot.values:
                lo_p, hi_p = interval(problem_boot.get((*key, name)))
            else:
                lo_p, hi_p = float("nan"), float("nan")
            source = _either(boot, exact, (*key, name)) if name in INTERVAL_METRICS else Interval()
            rows.append(_row(*key, name, value, source, len(cell.p), lo_problem=lo_p, hi_problem=hi_p))
        threshold_values = list(thresholds[key].values())
        rows.append(
            _row(
                *key,
                "threshold_in_fold",
                m.select_threshold(cell.y, cell.p),
                np.array([]),
                len(cell.p),
                lo_problem=None,
                hi_problem=None,
            )
        )
        rows.append(
            {
                "judge": key[0],
                "condition": key[1],
                "metric": "threshold_oof_median",
                "value": float(np.median(threshold_values)) if threshold_values else float("nan"),
                "lo": float(min(threshold_values)) if threshold_values else None,
                "hi": float(max(threshold_values)) if threshold_values else None,
                "n": len(threshold_values),
                "lo_problem": None,
                "hi_problem": None,
            }
        )
    schema = {**LONG_SCHEMA, "lo_problem": pl.Float64, "hi_problem": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def _scale_validity(u: Universe, boot, decisions, exact: Analytic) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        validity = calibration.scale_validity(cell.p, cell.y)
        for name in ("distinct_values", "effective_rules", "share_at_zero", "share_at_one"):
            rows.append(_row(*key, name, validity[name], np.array([]), len(cell.p)))
        # the drop has no interval: its in-fold side is optimistic by construction (ScalarMetric.interval)
        value = m.in_fold_mcc(cell.y, cell.p) - _mcc_oof(cell.y, decisions[key], None)
        rows.append(_row(*key, "mcc_drop_in_fold_to_oof", value, Interval(), len(cell.p)))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _excluded_rows(condition: str, excluded: list[Excluded]) -> list[dict]:
    """A note row per judge or pair left out of a pooled figure (core/dynamics/pooling.py): who, why, on which
    attempts."""
    return [
        _note(x.label, condition, x.left_out.metric, x.left_out.value, x.left_out.answers, note=x.note)
        for x in excluded
    ]


def _agreement(panels: dict[str, ConditionPanel], boot, exact: Analytic) -> pl.DataFrame:
    rows = []
    for condition, panel in panels.items():
        rows += _excluded_rows(condition, panel.excluded + panel.agreement_excluded)
        for (a, b), (both, pa, pb) in panel.pairs.items():
            pair = agreement.pairwise_agreement({a: pa, b: pb})[0]
            for name in ("kappa", "rho"):
                rows.append(
                    _row(
                        f"{a}~{b}",
                        condition,
                        f"pairwise_{name}",
                        pair[name],
                        _either(boot, exact, ("pair", a, b, condition, name)),
                        len(both),
                    )
                )
        if len(panel.shared_preds) >= 2:
            for name, value in agreement.panel_agreement(panel.shared_preds).items():
                rows.append(
                    _row(
                        PANEL,
                        condition,
                        name,
                        value,
                        _either(boot, exact, ("panel_agreement", condition, name)),
                        len(panel.shared),
                    )
                )
    return pl.DataFrame(rows, schema=POOLED_SCHEMA)


def _condition_effects(u, panels: dict[str, ConditionPanel], boot, exact: Analytic) -> pl.DataFrame:
    rows = []
    for judge in u.judges:
        for a, b in combinations(u.conditions, 2):
            if (judge, a) not in u.cells or (judge, b) not in u.cells:
                continue
            label = f"{b} - {a}"
            for metric in ("roc_auc", "roc_auc_evidence"):
                ca, cb = u.cells[(judge, a)], u.cells[(judge, b)]
                if metric == "roc_auc":
                    value = m.roc_auc(cb.y, cb.p) - m.roc_auc(ca.y, ca.p)
                else:
                    ea, eb = u.evidence[ca.index], u.evidence[cb.index]
                    value = m.roc_auc(cb.y[eb], cb.p[eb]) - m.roc_auc(ca.y[ea], ca.p[ea])
                diff = _difference(boot, exact, (judge, b, metric), (judge, a, metric))
                n = int(u.evidence[cb.index].sum()) if metric == "roc_auc_evidence" else len(cb.p)
                rows.append(_row(judge, label, f"delta_{metric}", value, diff, n))
            shared, on_a, on_b = _across_conditions(u, judge, a, b)
            rows.append(
                _row(
                    judge,
                    label,
                    "rank_correlation",
                    agreement.spearman(on_a, on_b),
                    _either(boot, exact, ("rank_corr", judge, a, b)),
                    len(shared),
                )
            )
    for a, b in combinations(u.conditions, 2):
        pa, pb = panels[a], panels[b]
        if min(len(pa.shared_preds), len(pb.shared_preds)) >= 2:
            value = (
                agreement.panel_agreement(pb.shared_preds)["fleiss_kappa"]
                - agreement.panel_agreement(pa.shared_preds)["fleiss_kappa"]
            )
            diff = _difference(
                boot, exact, ("panel_agreement", b, "fleiss_kappa"), ("panel_agreement", a, "fleiss_kappa")
            )
            rows.append(_row(PANEL, f"{b} - {a}", "delta_fleiss_kappa", value, diff, len(pb.shared)))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _panel(u, panels: dict[str, ConditionPanel], boot, exact: Analytic) -> pl.DataFrame:
    rows = []
    for condition, panel in panels.items():
        rows += _excluded_rows(condition, panel.excluded)
        if not panel.members:
            continue
        items, score = panel.items, panel.score
        y = u.y[items]
        panel_auc = m.roc_auc(y, score)
        panel_key = (PANEL, condition, "roc_auc")
        panel_boot = _either(boot, exact, panel_key)
        rows.append(_note(PANEL, condition, "members", len(panel.members), len(items)))
        rows.append(_row(PANEL, condition, "roc_auc", panel_auc, panel_boot, len(items)))
        ev = u.evidence[items]
        rows.append(
            _row(
                PANEL,
                condition,
                "roc_auc_evidence",
                m.roc_auc(y[ev], score[ev]),
                _either(boot, exact, (PANEL, condition, "roc_auc_evidence")),
                int(ev.sum()),
            )
        )
        rows.append(
            _row(
                PANEL,
                condition,
                "pr_auc",
                m.average_precision(y, score),
                _either(boot, exact, (PANEL, condition, "pr_auc")),
                len(items),
            )
        )
        if len(panel.members) < 2:
            continue
        cells = {j: u.cells[(j, condition)] for j in panel.members}
        members = {j: m.roc_auc(c.y, c.p) for j, c in cells.items()}
        member_keys = [(j, condition, "roc_auc") for j in panel.members]
        mean_member = np.mean(list(members.values()))
        if all(k in exact for k in member_keys):
            mean_member_boot = Interval(totals=np.mean([exact.trajectory[k] for k in member_keys], axis=0))
        else:
            mean_member_boot = Interval(replicates=np.mean([boot.get(k) for k in member_keys], axis=0))
        rows.append(_row(PANEL, condition, "mean_member_roc_auc", mean_member, mean_member_boot, len(items)))
        rows.append(
            _row(
                PANEL,
                condition,
                "gain_over_mean_member",
                panel_auc - mean_member,
                _difference(boot, exact, panel_key, member_keys),
                len(items),
            )
        )
        best = max(members, key=members.__getitem__)
        best_key = (best, condition, "roc_auc")
        rows.append(
            _row(
                best,
                condition,
                "best_member_roc_auc",
                members[best],
                _either(boot, exact, best_key),
                len(cells[best].p),
            )
        )
        rows.append(
            _row(
                best,
                condition,
                "panel_minus_best_member",
                panel_auc - members[best],
                _difference(boot, exact, panel_key, best_key),
                len(items),
            )
        )
    return pl.DataFrame(rows, schema=POOLED_SCHEMA)


def _per_problem(u) -> pl.DataFrame:
    rows = []
    problems = u.attempts["problem_id"].to_numpy()
    for key, cell in u.cells.items():
        aucs = []
        for problem in np.unique(problems[cell.index]):
            mine = problems[cell.index] == problem
            y = cell.y[mine]
            auc = m.roc_auc(y, cell.p[mine]) if 0 < y.sum() < len(y) else float("nan")
            rows.append(
                {
                    "judge": key[0],
                    "condition": key[1],
                    "problem_id": str(problem),
                    "metric": "roc_auc",
                    "value": auc,
                    "n": int(mine.sum()),
                    "accepted": int(y.sum()),
                    "inverted": bool(np.isfinite(auc) and auc < 0.5),
                }
            )
            if np.isfinite(auc):
                aucs.append(auc)
        rows.append(
            {
                "judge": key[0],
                "condition": key[1],
                "problem_id": "(macro)",
                "metric": "roc_auc_macro",
                "value": float(np.mean(aucs)) if aucs else float("nan"),
                "n": len(aucs),
                "accepted": None,
                "inverted": None,
            }
        )
    return pl.DataFrame(
        rows,
        schema={
            "judge": pl.String,
            "condition": pl.String,
            "problem_id": pl.String,
            "metric": pl.String,
            "value": pl.Float64,
            "n": pl.Int64,
            "accepted": pl.Int64,
            "inverted": pl.Boolean,
        },
    )


def _consistency(predictions: pl.DataFrame) -> pl.DataFrame:
    """Character-identical consecutive resubmissions in a trajectory, and how far p moved between them: identical
    by the attempts' ``code_sha256`` (equal texts, equal hashes; a 64-character key per row, never the text)."""
    rows = []
    keys = ["judge", "condition", "participant", "problem_id", "turn"]
    # its columns only: a sort of the whole table copies every column (at 10^6 predictions +380 MB)
    ordered = predictions.select(*keys, "code_sha256", "p_accept").sort(keys)
    pairs = ordered.with_columns(
        pl.col("code_sha256").shift(1).over("judge", "condition", "participant", "problem_id").alias("previous_code"),
        pl.col("p_accept").shift(1).over("judge", "condition", "participant", "problem_id").alias("previous_p"),
    ).filter(pl.col("previous_code").is_not_null() & (pl.col("code_sha256") == pl.col("previous_code")))
    for (judge, condition), _part in ordered.group_by("judge", "condition", maintain_order=True):
        mine = pairs.filter((pl.col("judge") == judge) & (pl.col("condition") == condition))
        moves = (mine["p_accept"] - mine["previous_p"]).abs().to_numpy() if len(mine) else np.array([])
        for metric, value in (
            ("identical_resubmissions", float(len(mine))),
            ("mean_abs_move", float(moves.mean()) if len(moves) else float("nan")),
            ("max_abs_move", float(moves.max()) if len(moves) else float("nan")),
            ("share_moved", float((moves > 0).mean()) if len(moves) else float("nan")),
        ):
            rows.append(
                {
                    "judge": judge,
                    "condition": condition,
                    "metric": metric,
                    "value": value,
                    "lo": None,
                    "hi": None,
                    "n": len(mine),
                }
            )
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def run_to_run(cache: pl.DataFrame) -> pl.DataFrame:
    """Krippendorff's alpha (interval) between repeated runs (epochs) of one judge on the same requests."""
    rows = []
    valid = cache.filter(pl.col("status") == "ok")
    for (judge, condition), part in valid.group_by("judge", "condition", maintain_order=True):
        epochs = sorted(part["epoch"].unique().to_list())
        if len(epochs) < 2:
            rows.append(
                {
                    "judge": judge,
                    "condition": condition,
                    "metric": "run_to_run_alpha",
                    "value": None,
                    "lo": None,
                    "hi": None,
                    "n": len(epochs),
                }
            )
            continue
        wide = part.pivot(on="epoch", index=["attempt_uid", "request_hash"], values="p_accept")
        runs = wide.select([str(e) for e in epochs]).to_numpy().T.astype(np.float64)
        rows.append(
            {
                "judge": judge,
                "condition": condition,
                "metric": "run_to_run_alpha",
                "value": agreement.krippendorff_alpha(runs),
                "lo": None,
                "hi": None,
                "n": len(epochs),
            }
        )
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _error_profile(u, decisions, config: MeasurementConfig) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        yhat, y, p = decisions[key], cell.y, cell.p
        counts = {}
        if yhat is not None:  # no out-of-fold decisions without folds (NO_FOLDS)
            counts = {
                "tp": int(((yhat == 1) & (y == 1)).sum()),
                "fp": int(((yhat == 1) & (y == 0)).sum()),
                "tn": int(((yhat == 0) & (y == 0)).sum()),
                "fn": int(((yhat == 0) & (y == 1)).sum()),
            }
        counts |= {
            "confident_fn": int(((p <= config.confident) & (y == 1)).sum()),
            "confident_fp": int(((p >= 1 - config.confident) & (y == 0)).sum()),
        }
        for metric, value in counts.items():
            rows.append(
                {
                    "judge": key[0],
                    "condition": key[1],
                    "metric": metric,
                    "value": float(value),
                    "lo": None,
                    "hi": None,
                    "n": len(p),
                }
            )
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _recalibration(u) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        if len(np.unique(u.folds[cell.index])) < 2:
            continue  # out-of-fold recalibration needs folds (NO_FOLDS)
        for summary in calibration.recalibration_summary(cell.p, cell.y, u.folds[cell.index]):
            for metric in ("ece", "brier", "roc_auc"):
                rows.append(
                    {
                        "judge": key[0],
                        "condition": key[1],
                        "metric": f"{metric}_{summary['method']}",
                        "value": float(summary[metric]),
                        "lo": None,
                        "hi": None,
                        "n": len(cell.p),
                    }
                )
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def panel_kappa_matrix(panel: ConditionPanel) -> tuple[list[str], np.ndarray, list[pooling.LeftOut]]:
    """The kappa heatmap's data for one condition, from its panel (:func:`condition_panel`): ``(judges, kappa,
    left_out)``, the judges core/dynamics/pooling.py keeps under the condition, in name order; Cohen's kappa of
    their median cuts, pair by pair on the attempts both answered, as in the agreement table (1 on the diagonal,
    nan for a pair left out: one of the two is constant on the attempts both answered); and the judges left out
    of the figure."""
    judges = list(panel.members)
    kappa = np.full((len(judges), len(judges)), np.nan)
    np.fill_diagonal(kappa, 1.0)
    for (a, b), (_, pa, pb) in panel.pairs.items():
        i, j = judges.index(a), judges.index(b)
        kappa[i, j] = kappa[j, i] = agreement.pairwise_agreement({a: pa, b: pb})[0]["kappa"]
    return judges, kappa, [x.left_out for x in panel.excluded]


def headline_table(judge_metrics: pl.DataFrame, condition: str) -> pl.DataFrame:
    """Table VI of the seed study for one condition: value [lo, hi] per judge and metric."""
    wanted = HEADLINE_METRICS
    rows = []
    part = judge_metrics.filter(pl.col("condition") == condition)
    for judge in sorted(part["judge"].unique().to_list()):
        row = {"judge": judge}
        for metric in wanted:
            r = part.filter((pl.col("judge") == judge) & (pl.col("metric") == metric))
            if len(r):
                v, lo, hi = r["value"][0], r["lo"][0], r["hi"][0]
                row[metric] = f"{v:.4f} [{lo:.3f}, {hi:.3f}]"
        rows.append(row)
    return pl.DataFrame(rows)
