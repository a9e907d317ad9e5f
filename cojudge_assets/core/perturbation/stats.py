"""Perturbation statistics: does a judge's score drop when a program is broken?

Input is one row per (judge, mutant) with the judge's p on the mutant and on its
seed (:data:`PAIR_SCHEMA`). The primary subset keeps mutants whose seed the same
judge scored at or above ``seed_cut`` (0.5): a judge that already rejects the
seed has no room to drop. Shift = p(mutant) - p(seed).

Per judge (all on the primary subset):

* ``arm_discrimination`` A_j: ROC-AUC of the shift separating control mutants
  (positive, they should not move) from semantic ones; 0.5 is blind to defects,
  1 puts every semantic shift below every control shift. Also on loop-context
  mutants of both arms (subset ``loop``) and with execution-confirmed semantic
  mutants only (subset ``confirmed``).
* ``reaction``: the share of an arm (subset = the arm) with a drop larger than
  ``drop_cut`` (0.05): shift < -drop_cut.
* ``severity_gradient``: Spearman's rho between severity (1..4) and the drop
  (-shift) over semantic mutants.
* ``adversarial_mean_shift`` and ``adversarial_rise``: the adversarial arm's mean
  shift and its share with shift > drop_cut (a judge talked into a higher score).
* ``mean_shift`` per operator (subset = operator), for the severity plot.
* Consistency under rewrite, per control operator (subset = operator): ``rewrite_abs_shift``, the mean
  |p(rewrite) - p(seed)| (0 for a judge that reads a behaviour-preserving rewrite as the same program), and
  ``rewrite_flip``, the share whose decision at ``seed_cut`` flips (on the primary subset: the seed was
  accepted, the rewrite is not).

Intervals: percentile intervals from a bootstrap over seeds (a seed and all its
mutants are drawn together), the same resamples for every statistic of a judge
(core/bootstrap.cluster_weights).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import polars as pl

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.measurement.agreement import spearman
from cojudge_assets.core.perturbation.operators import ARM, SEVERITY
from cojudge_assets.core.stats.bootstrap import cluster_codes, cluster_weights, interval
from cojudge_assets.core.stats.metrics import roc_auc, weighted_mean

PAIR_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "seed_uid": pl.String,
        "mutant_uid": pl.String,
        "operator": pl.String,
        "arm": pl.String,
        "severity": pl.Int64,
        "in_loop": pl.Boolean,
        "in_guard": pl.Boolean,
        "behaviour_changed": pl.Boolean,
        "p_seed": pl.Float64,
        "p_mutant": pl.Float64,
    }
)
METRIC_SCHEMA = {
    "judge": pl.String,
    "metric": pl.String,
    "subset": pl.String,
    "value": pl.Float64,
    "lo": pl.Float64,
    "hi": pl.Float64,
    "n": pl.Int64,
    "n_seeds": pl.Int64,
}


@dataclass(frozen=True)
class PerturbationConfig:
    seed_cut: float = 0.5
    drop_cut: float = 0.05
    n_resamples: int = 2000
    seed: int = SEED
    level: float = 0.95


def judged_pairs(mutants: pl.DataFrame, outputs: pl.DataFrame) -> pl.DataFrame:
    """One row per (judge, verified mutant) that the judge answered validly for both the mutant and its seed.

    ``outputs`` has attempt_uid (a seed's attempt_uid or a mutant_uid), judge, status and p_accept.
    """
    valid = outputs.filter(pl.col("status") == "ok").select("judge", "attempt_uid", "p_accept")
    verified = mutants.filter(pl.col("verified"))
    return (
        verified.join(valid.rename({"attempt_uid": "mutant_uid", "p_accept": "p_mutant"}), on="mutant_uid")
        .join(valid.rename({"attempt_uid": "seed_uid", "p_accept": "p_seed"}), on=["seed_uid", "judge"])
        .select(list(PAIR_SCHEMA))
        .cast(PAIR_SCHEMA)
        .sort("judge", "mutant_uid")
    )


def primary(pairs: pl.DataFrame, seed_cut: float = 0.5) -> pl.DataFrame:
    """The primary subset with its shift column."""
    return pairs.filter(pl.col("p_seed") >= seed_cut).with_columns(
        (pl.col("p_mutant") - pl.col("p_seed")).alias("shift")
    )


def perturbation_statistics(
    rows: pl.DataFrame, drop_cut: float, seed_cut: float = 0.5
) -> dict[tuple[str, str], tuple[np.ndarray, Callable[[np.ndarray], float | np.ndarray]]]:
    """Each statistic as (row mask, function of (shift, weights over the masked rows))."""
    shift = rows["shift"].to_numpy()
    arm = rows["arm"].to_numpy()
    semantic, control, adversarial = arm == "semantic", arm == "control", arm == "adversarial"
    loop = rows["in_loop"].to_numpy()
    confirmed = semantic & rows["behaviour_changed"].fill_null(False).to_numpy()
    severity = rows["severity"].fill_null(0).to_numpy().astype(float)
    control_label = control.astype(np.int64)

    def auc(mask):
        return mask, lambda w, m=mask: roc_auc(control_label[m], shift[m], sample_weight=w)

    def share(mask, values):
        return mask, lambda w, m=mask, v=values: weighted_mean(v[m].astype(float), sample_weight=w)

    stats = {
        ("arm_discrimination", "all"): auc(semantic | control),
        ("arm_discrimination", "loop"): auc((semantic | control) & loop),
        ("arm_discrimination", "confirmed"): auc(confirmed | control),
        ("severity_gradient", "semantic"): (semantic, lambda w, m=semantic: spearman(severity[m], -shift[m], w)),
        ("adversarial_mean_shift", "adversarial"): share(adversarial, shift),
        ("adversarial_rise", "adversarial"): share(adversarial, shift > drop_cut),
    }
    for name, mask in (("semantic", semantic), ("control", control), ("adversarial", adversarial)):
        stats[("reaction", name)] = share(mask, shift < -drop_cut)
    operators = rows["operator"].to_numpy()
    flip = (rows["p_mutant"].to_numpy() >= seed_cut) != (rows["p_seed"].to_numpy() >= seed_cut)
    for operator in sorted(set(rows["operator"].to_list())):
        stats[("mean_shift", operator)] = share(operators == operator, shift)
    for operator in sorted(set(rows.filter(pl.col("arm") == "control")["operator"].to_list())):
        stats[("rewrite_abs_shift", operator)] = share(operators == operator, np.abs(shift))
        stats[("rewrite_flip", operator)] = share(operators == operator, flip)
    return stats


def _point(function, n: int):
    """A statistic on the data as given (a single unit weight row), as a float."""
    value = function(np.ones((1, n)))
    return float(np.asarray(value).reshape(-1)[0])


def perturbation_metrics(pairs: pl.DataFrame, config: PerturbationConfig = PerturbationConfig()) -> pl.DataFrame:
    """One row per (judge, metric, subset) with a seed-bootstrap interval (see module docstring)."""
    missing = set(PAIR_SCHEMA) - set(pairs.columns)
    if missing:
        raise ValueError(f"perturbation pairs lack columns {sorted(missing)}")
    out = []
    for judge in sorted(set(pairs["judge"].to_list())):
        rows = primary(pairs.filter(pl.col("judge") == judge), config.seed_cut).sort("seed_uid", "mutant_uid")
        if rows.is_empty():
            continue
        seeds = rows["seed_uid"].to_numpy()
        stats = perturbation_statistics(rows, config.drop_cut, config.seed_cut)
        replicates: dict[tuple[str, str], list[np.ndarray]] = {key: [] for key in stats}
        for block in cluster_weights(cluster_codes(seeds), config.n_resamples, config.seed):
            for key, (mask, function) in stats.items():
                if mask.any():
                    replicates[key].append(np.asarray(function(block[:, mask]), dtype=float))
        for (metric, subset), (mask, function) in stats.items():
            n = int(mask.sum())
            value = _point(function, n) if n else float("nan")
            lo, hi = interval(np.concatenate(replicates[(metric, subset)]), config.level) if n else (np.nan, np.nan)
            out.append(
                {
                    "judge": judge,
                    "metric": metric,
                    "subset": subset,
                    "value": value,
                    "lo": lo,
                    "hi": hi,
                    "n": n,
                    "n_seeds": int(len(set(seeds[mask]))) if n else 0,
                }
            )
    return pl.DataFrame(out, schema=METRIC_SCHEMA)


def yield_table(mutants: pl.DataFrame, operators: tuple[str, ...] = ()) -> pl.DataFrame:
    """Per operator: mutants made, single-edit, compiled, verified, in a guard / a loop, execution-confirmed, and
    the languages it mutated. Each of ``operators`` that made no mutant gets a row of zeros with a note saying
    so (seeds are C, C++ and Java only: other languages are never mutated, verify.MUTATED_LANGUAGES). A seed
    skipped over a tree-sitter budget (its one row of kind ``skipped``, verify.py) made no mutant: not counted."""
    if "kind" in mutants.columns:
        mutants = mutants.filter(pl.col("kind").fill_null("") != "skipped")
    made = (
        mutants.group_by("operator", "arm", "severity")
        .agg(
            pl.len().alias("mutants"),
            pl.col("single_edit").sum().alias("single_edit"),
            pl.col("compiles").sum().alias("compiles"),
            pl.col("verified").sum().alias("verified"),
            pl.col("in_guard").sum().alias("in_guard"),
            pl.col("in_loop").sum().alias("in_loop"),
            pl.col("behaviour_changed").sum().alias("behaviour_changed"),
            (pl.col("behaviour_changed").filter(pl.col("verified")).mean()).alias("confirmed_share"),
            (
                pl.col("language").unique().sort().str.join(", ")
                if "language" in mutants.columns
                else pl.lit(None, pl.String)
            ).alias("languages"),
        )
        .with_columns(pl.lit(None, pl.String).alias("note"))
    )
    languages = ", ".join(sorted(set(mutants["language"].to_list()))) if "language" in mutants.columns else ""
    languages = languages or "none"
    absent = [op for op in operators if op not in set(made["operator"].to_list())]
    if absent:
        zero = pl.DataFrame(
            {
                "operator": absent,
                "arm": [ARM.get(op, "control") for op in absent],
                "severity": [SEVERITY.get(op) for op in absent],
            },
            schema={"operator": pl.String, "arm": pl.String, "severity": pl.Int64},
        ).with_columns(
            pl.lit(None, pl.String).alias("languages"),
            pl.lit(f"no site in any usable seed (seeds in: {languages})").alias("note"),
        )
        made = pl.concat([made, zero], how="diagonal_relaxed").with_columns(
            pl.col("mutants", "single_edit", "compiles", "verified", "in_guard", "in_loop", "behaviour_changed")
            .fill_null(0)
            .cast(pl.Int64)
        )
    return made.sort(pl.col("severity").fill_null(9), "operator")


def accuracy_points(metrics: pl.DataFrame, judge_metrics: pl.DataFrame, condition: str) -> pl.DataFrame:
    """Per judge: ROC-AUC on the contest's attempts under ``condition`` and arm discrimination, with intervals."""
    auc = judge_metrics.filter((pl.col("metric") == "roc_auc") & (pl.col("condition") == condition)).select(
        "judge", pl.col("value").alias("roc_auc"), pl.col("lo").alias("roc_auc_lo"), pl.col("hi").alias("roc_auc_hi")
    )
    ad = metrics.filter((pl.col("metric") == "arm_discrimination") & (pl.col("subset") == "all")).select(
        "judge", pl.col("value").alias("arm_discrimination"), pl.col("lo").alias("ad_lo"), pl.col("hi").alias("ad_hi")
    )
    return auc.join(ad, on="judge").drop_nans().drop_nulls()


def perturbation_answers(perturbation_outputs: pl.DataFrame | None) -> pl.DataFrame:
    """The judges' answers on seeds and mutants (judge, attempt_uid, status, p_accept), from the
    ``perturbation_outputs`` frame; empty when the run asks no judge or none answered yet."""
    if perturbation_outputs is None or perturbation_outputs.is_empty():
        return pl.DataFrame()
    return perturbation_outputs.select("judge", "attempt_uid", "status", "p_accept")
