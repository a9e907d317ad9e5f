"""Which findings the data supports, and how robust each is (seed study VI): contamination and findings tables.

Two tables, both from the long predictions table and the design split (core/design_split.py):

* :func:`contamination`: every measurement metric of each judge x condition on
  the never-inspected part (the design split's test groups) and on the full
  corpus, with the prevalence of both, and the paired difference full minus
  never-inspected. All three come from one set of trajectory-bootstrap resamples
  (core/bootstrap.py): a resample draws trajectories, and the never-inspected
  figure uses the drawn trajectories that are in test, so both sides move
  together. A cell is **flagged** when the paired difference of its ROC-AUC has
  an interval excluding 0 on the positive side: the judge ranks better on what
  the prompt designer could read than on what they never saw. Only ROC-AUC
  flags, because only it compares like with like across two parts of different
  size and case mix: PR-AUC and MCC move with the prevalence, ECE is biased
  upward on a smaller sample (fewer attempts per bin), Brier and log loss move
  with how hard the part's attempts are. Their differences are reported, their
  ``flagged`` is null, as is the prevalence's (``base_rate``).
* :func:`findings`: each comparison the measurement makes, one row each: a judge
  above chance (ROC-AUC - 0.5), a judge above another under the same condition,
  one condition above another for a judge, the panel above its mean member, a
  perturbation arm above the control (arm discrimination - 0.5, from
  ``perturbation_metrics``: its seed bootstrap is the only resampling it has).
  Every ROC-AUC is computed on the attempts the judge answered, as in the
  measurement tables. The claimed direction is the point estimate's (for a judge
  against a judge, a condition against a condition) or the comparison's own
  (above chance, panel above mean member, arm above control); ``estimate`` is
  the claimed side minus the other, so a positive estimate agrees with the
  claim. Each row gives the estimate, its interval and :func:`status` under
  trajectory resampling (the primary one, unprefixed), problem resampling
  (``problem_``), equal problem weights (``equal_weights_``: the mean of
  per-problem ROC-AUCs, problems with both labels, as in ``per_problem``'s macro
  average, with a problem-bootstrap interval) and on the never-inspected part
  (``never_inspected_``: trajectory resampling of the test groups), and
  ``widening`` = problem interval width / trajectory interval width.

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
from typing import Any

import numpy as np
import polars as pl

from cojudge_assets.core import metrics as m
from cojudge_assets.core.bootstrap import cluster_counts, cluster_weights, interval
from cojudge_assets.core.constants import SEED
from cojudge_assets.core.design_split import NEVER_INSPECTED, attempt_splits
from cojudge_assets.core.measurement import (
    INSTRUMENT_METRICS,
    PANEL,
    SCALAR_METRICS,
    MeasurementConfig,
    Universe,
    condition_panel,
)

HOLDS, TIE, REVERSED, UNDEFINED = "holds", "tie", "reversed", "undefined"
SCHEMES = ("trajectory", "problem", "equal_weights", "never_inspected")
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


def _universe(predictions: pl.DataFrame, config: RobustnessConfig) -> Universe:
    return Universe(predictions, MeasurementConfig(folds=config.folds, resamples=config.resamples, seed=config.seed))


# ---------------------------------------------------------------------------------------------- contamination

# the instrument metrics of the measurement (core/measurement.py's registry) and the prevalence beside them
CONTAMINATION_METRICS: tuple[str, ...] = (*INSTRUMENT_METRICS, "base_rate")
CONTAMINATION_SCHEMA = {
    "judge": pl.String,
    "condition": pl.String,
    "metric": pl.String,
    "full_corpus": pl.Float64,
    "full_corpus_lo": pl.Float64,
    "full_corpus_hi": pl.Float64,
    "never_inspected": pl.Float64,
    "never_inspected_lo": pl.Float64,
    "never_inspected_hi": pl.Float64,
    "difference": pl.Float64,  # full_corpus - never_inspected
    "difference_lo": pl.Float64,
    "difference_hi": pl.Float64,
    "n_full_corpus": pl.Int64,
    "n_never_inspected": pl.Int64,
    "flagged": pl.Boolean,  # ROC-AUC only (leak_flag); null for the other metrics and the prevalence
}


FLAGGED_METRICS = ("roc_auc",)  # see the module docstring: the one metric comparable across the two parts


def leak_flag(metric: str, lo: float, hi: float) -> bool | None:
    """For a flagged metric (:data:`FLAGGED_METRICS`): True when the interval of full - never_inspected excludes 0
    on the side where the full corpus is better; None for the other metrics and when the interval is undefined.

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
    predictions: pl.DataFrame, design_split: pl.DataFrame, config: RobustnessConfig = RobustnessConfig()
) -> pl.DataFrame:
    """Per judge x condition x metric: the metric on the full corpus and on the never-inspected part, the paired
    difference full - never_inspected, each with a trajectory-bootstrap interval, and the leak flag
    (:func:`leak_flag`). Out-of-fold MCC uses the measurement's out-of-fold decisions (same folds and seed)."""
    if predictions.is_empty():
        return pl.DataFrame(schema=CONTAMINATION_SCHEMA)
    u = _universe(predictions, config)
    test = _test_mask(u, design_split)
    decisions = {key: m.oof_decisions(cell.y, cell.p, folds=u.folds[cell.index])[0] for key, cell in u.cells.items()}
    # the never-inspected figures on the cell's test attempts only: the same as zero weights elsewhere, cheaper
    tested = {key: np.flatnonzero(test[cell.index]) for key, cell in u.cells.items()}
    full_reps: dict[tuple, list[np.ndarray]] = {}
    test_reps: dict[tuple, list[np.ndarray]] = {}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", m.UndefinedMetricWarning)
        for w in cluster_weights(u.trajectory, config.resamples, config.seed):
            for key, cell in u.cells.items():
                wc, ti = w[:, cell.index], tested[key]
                y, p, d = cell.y, cell.p, decisions[key]
                for name in CONTAMINATION_METRICS:
                    fn = SCALAR_METRICS[name].fn
                    full_reps.setdefault((*key, name), []).append(fn(y, p, d, wc))
                    test_reps.setdefault((*key, name), []).append(fn(y[ti], p[ti], d[ti], wc[:, ti]))
        rows = []
        for key, cell in u.cells.items():
            ti = tested[key]
            y, p, d = cell.y, cell.p, decisions[key]
            for name in CONTAMINATION_METRICS:
                fn = SCALAR_METRICS[name].fn
                full = float(fn(y, p, d, np.ones((1, len(y))))[0])
                never = float(fn(y[ti], p[ti], d[ti], np.ones((1, len(ti))))[0])
                fr = np.concatenate(full_reps[(*key, name)])
                tr = np.concatenate(test_reps[(*key, name)])
                (flo, fhi), (tlo, thi) = interval(fr, config.level), interval(tr, config.level)
                dlo, dhi = interval(fr - tr, config.level)
                rows.append(
                    {
                        "judge": key[0],
                        "condition": key[1],
                        "metric": name,
                        "full_corpus": full,
                        "full_corpus_lo": flo,
                        "full_corpus_hi": fhi,
                        "never_inspected": never,
                        "never_inspected_lo": tlo,
                        "never_inspected_hi": thi,
                        "difference": full - never,
                        "difference_lo": dlo,
                        "difference_hi": dhi,
                        "n_full_corpus": len(cell.index),
                        "n_never_inspected": len(ti),
                        "flagged": leak_flag(name, dlo, dhi),
                    }
                )
    return pl.DataFrame(rows, schema=CONTAMINATION_SCHEMA)


# ---------------------------------------------------------------------------------------------- findings

FINDINGS_SCHEMA = {
    "finding": pl.String,  # the claim in words
    "kind": pl.String,  # above_chance, judge_vs_judge, condition_vs_condition, panel_vs_mean_member, perturbation_arm
    "judge": pl.String,  # the claimed side (a judge, or "panel")
    "condition": pl.String,  # the claimed condition (or the perturbation subset)
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
}


class _Figures:
    """Point estimates and bootstrap replicates of every ROC-AUC a finding compares, under one scheme.

    Keys: ("cell", judge, condition), ("panel", condition), ("mean_member", condition).
    """

    def __init__(self) -> None:
        self.point: dict[tuple, float] = {}
        self.reps: dict[tuple, list[np.ndarray]] = {}

    def replicates(self, key: tuple) -> np.ndarray:
        return np.concatenate(self.reps[key]) if key in self.reps else np.array([])


def _pooled(u: Universe, panels: dict, weights: np.ndarray) -> dict[tuple, np.ndarray]:
    """ROC-AUC of every cell, panel and mean member under a weight matrix (B, attempts) (vectorised)."""
    out: dict[tuple, np.ndarray] = {}
    for key, cell in u.cells.items():
        out[("cell", *key)] = m.roc_auc(cell.y, cell.p, sample_weight=weights[:, cell.index])
    for condition, panel in panels.items():
        if not panel.members:
            continue
        out[("panel", condition)] = m.roc_auc(u.y[panel.items], panel.score, sample_weight=weights[:, panel.items])
        out[("mean_member", condition)] = np.mean([out[("cell", j, condition)] for j in panel.members], axis=0)
    return out


def _macro(u: Universe, panels: dict, counts: np.ndarray, one_hot: np.ndarray) -> dict[tuple, np.ndarray]:
    """Mean of per-problem ROC-AUCs (problems with both labels) under problem counts (B, problems)."""

    def macro(y, p, index):
        per_problem = m.roc_auc(y, p, sample_weight=one_hot[:, index])  # (P,): NaN where one label only
        defined = np.isfinite(per_problem)
        with np.errstate(invalid="ignore", divide="ignore"):
            return (counts @ np.where(defined, per_problem, 0.0)) / (counts @ defined.astype(np.float64))

    out: dict[tuple, np.ndarray] = {}
    for key, cell in u.cells.items():
        out[("cell", *key)] = macro(cell.y, cell.p, cell.index)
    for condition, panel in panels.items():
        if not panel.members:
            continue
        out[("panel", condition)] = macro(u.y[panel.items], panel.score, panel.items)
        out[("mean_member", condition)] = np.mean([out[("cell", j, condition)] for j in panel.members], axis=0)
    return out


def _scheme_figures(u: Universe, panels: dict, test: np.ndarray, config: RobustnessConfig) -> dict[str, _Figures]:
    figures = {s: _Figures() for s in SCHEMES}
    n = len(u.uids)
    n_problems = int(u.problem.max()) + 1 if n else 0
    one_hot = (u.problem[None, :] == np.arange(n_problems)[:, None]).astype(np.float64)
    points = {
        "trajectory": _pooled(u, panels, np.ones((1, n))),
        "problem": _pooled(u, panels, np.ones((1, n))),
        "never_inspected": _pooled(u, panels, test[None, :]),
        "equal_weights": _macro(u, panels, np.ones((1, n_problems)), one_hot),
    }
    for scheme, values in points.items():
        figures[scheme].point = {k: float(v[0]) for k, v in values.items()}

    def add(scheme, values):
        for k, v in values.items():
            figures[scheme].reps.setdefault(k, []).append(v)

    for w in cluster_weights(u.trajectory, config.resamples, config.seed):
        add("trajectory", _pooled(u, panels, w))
        add("never_inspected", _pooled(u, panels, w * test[None, :]))
    problem_seed = config.seed + 1  # the measurement's problem resamples (core/measurement.py)
    for w in cluster_weights(u.problem, config.resamples, problem_seed):
        add("problem", _pooled(u, panels, w))
    for counts in cluster_counts(n_problems, config.resamples, problem_seed):
        add("equal_weights", _macro(u, panels, counts, one_hot))
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

    def text(self) -> str:
        if self.kind == "above_chance":
            return f"{self.judge} above chance under {self.condition}"
        if self.kind == "judge_vs_judge":
            return f"{self.judge} above {self.versus} under {self.condition}"
        if self.kind == "condition_vs_condition":
            return f"{self.judge}: {self.condition} above {self.versus}"
        return f"the panel above its mean member under {self.condition}"


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
) -> dict[str, tuple[float, float, float]]:
    """The (estimate, lo, hi) the measurement tables already hold for this comparison, by scheme."""

    def one(frame, **match):
        if frame is None or frame.is_empty():
            return None
        part = frame.filter(pl.all_horizontal([pl.col(k) == v for k, v in match.items()]))
        return part.row(0, named=True) if len(part) else None

    found = {}
    if comparison.kind == "above_chance":
        row = one(judge_metrics, judge=comparison.judge, condition=comparison.condition, metric="roc_auc")
        if row is not None:
            found["trajectory"] = (row["value"] - 0.5, row["lo"] - 0.5, row["hi"] - 0.5)
            if row.get("lo_problem") is not None:
                found["problem"] = (row["value"] - 0.5, row["lo_problem"] - 0.5, row["hi_problem"] - 0.5)
        row = one(per_problem, judge=comparison.judge, condition=comparison.condition, metric="roc_auc_macro")
        if row is not None:
            found["equal_weights"] = (row["value"] - 0.5, None, None)
    elif comparison.kind == "condition_vs_condition":
        claimed, other = comparison.condition, comparison.versus
        row = one(condition_effects, judge=comparison.judge, condition=f"{claimed} - {other}", metric="delta_roc_auc")
        if row is not None:
            found["trajectory"] = (row["value"], row["lo"], row["hi"])
        row = one(condition_effects, judge=comparison.judge, condition=f"{other} - {claimed}", metric="delta_roc_auc")
        if row is not None:
            found["trajectory"] = (-row["value"], -row["hi"], -row["lo"])
    elif comparison.kind == "panel_vs_mean_member":
        row = one(panel, judge=PANEL, condition=comparison.condition, metric="gain_over_mean_member")
        if row is not None:
            found["trajectory"] = (row["value"], row["lo"], row["hi"])
    return found


def _none_if_nan(value):
    return None if value is None or not np.isfinite(value) else float(value) + 0.0  # + 0.0: no "-0.00" in a report


def findings(
    predictions: pl.DataFrame,
    design_split: pl.DataFrame,
    *,
    judge_metrics: pl.DataFrame | None = None,
    condition_effects: pl.DataFrame | None = None,
    panel: pl.DataFrame | None = None,
    per_problem: pl.DataFrame | None = None,
    perturbation_metrics: pl.DataFrame | None = None,
    config: RobustnessConfig = RobustnessConfig(),
) -> pl.DataFrame:
    """One row per finding (:data:`FINDINGS_SCHEMA`; see the module docstring)."""
    rows = []
    if not predictions.is_empty():
        u = _universe(predictions, config)
        test = _test_mask(u, design_split).astype(np.float64)
        panels = {c: condition_panel(u, c) for c in u.conditions}
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", m.UndefinedMetricWarning)
            warnings.simplefilter("ignore", RuntimeWarning)  # the mean over members of an undefined replicate
            figures = _scheme_figures(u, panels, test, config)
        for comparison in _comparisons(u, panels, figures["trajectory"].point):
            stored = _stored(comparison, judge_metrics, condition_effects, panel, per_problem)
            row: dict[str, Any] = {
                "finding": comparison.text(),
                "kind": comparison.kind,
                "judge": comparison.judge,
                "condition": comparison.condition,
                "versus": comparison.versus,
                "metric": "roc_auc",
                "resampling": "trajectory",
                "n": comparison.n,
            }
            for scheme in SCHEMES:
                estimate = comparison.estimate(figures[scheme].point)
                lo, hi = interval(comparison.replicates(figures[scheme]), config.level)
                if scheme in stored:
                    estimate = stored[scheme][0]
                    if stored[scheme][1] is not None:
                        lo, hi = stored[scheme][1], stored[scheme][2]
                prefix = PREFIX[scheme]
                row[f"{prefix}estimate"] = _none_if_nan(estimate)
                row[f"{prefix}lo"], row[f"{prefix}hi"] = _none_if_nan(lo), _none_if_nan(hi)
                row[f"{prefix}status"] = status(row[f"{prefix}lo"], row[f"{prefix}hi"])
            row["widening"] = _widening(row)
            rows.append(row)
    rows += _perturbation_rows(perturbation_metrics)
    return pl.DataFrame(rows, schema=FINDINGS_SCHEMA)


def _widening(row: dict) -> float | None:
    if None in (row["lo"], row["hi"], row["problem_lo"], row["problem_hi"]) or row["hi"] <= row["lo"]:
        return None
    return (row["problem_hi"] - row["problem_lo"]) / (row["hi"] - row["lo"])


def _perturbation_rows(perturbation_metrics: pl.DataFrame | None) -> list[dict]:
    """Arm discrimination (control mutants' shifts above semantic ones'), - 0.5, with its seed-bootstrap interval."""
    if perturbation_metrics is None or perturbation_metrics.is_empty() or "metric" not in perturbation_metrics.columns:
        return []
    rows = []
    for r in perturbation_metrics.filter(pl.col("metric") == "arm_discrimination").iter_rows(named=True):
        lo = _none_if_nan(None if r["lo"] is None else r["lo"] - 0.5)
        hi = _none_if_nan(None if r["hi"] is None else r["hi"] - 0.5)
        row: dict[str, Any] = {
            "finding": f"{r['judge']}: semantic mutants scored below control mutants ({r['subset']})",
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
        }
        for scheme in SCHEMES[1:]:
            prefix = PREFIX[scheme]
            row.update({f"{prefix}estimate": None, f"{prefix}lo": None, f"{prefix}hi": None})
            row[f"{prefix}status"] = "not computed"
        rows.append(row)
    return rows


def widening_by_judge(findings_table: pl.DataFrame) -> pl.DataFrame:
    """Per judge: the mean factor by which problem resampling widens its ROC-AUC intervals over trajectory
    resampling (its above-chance rows, one per condition), and the conditions it is averaged over."""
    part = findings_table.filter((pl.col("kind") == "above_chance") & pl.col("widening").is_not_null())
    return (
        part.group_by("judge")
        .agg(pl.col("widening").mean().alias("widening"), pl.len().alias("conditions"))
        .sort("judge")
    )
