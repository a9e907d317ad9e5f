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
* the panel is the unweighted mean of the judges' percentile ranks, scored like
  a judge; the best member is the one with the highest point ROC-AUC;
* a judge x condition without predictions for some attempts is scored on the
  attempts it has; cross-judge tables use the attempts every judge has.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import combinations

import numpy as np
import polars as pl

from cojudge_assets.core import agreement, calibration
from cojudge_assets.core import metrics as m

LONG_SCHEMA = {"judge": pl.String, "condition": pl.String, "metric": pl.String, "value": pl.Float64,
               "lo": pl.Float64, "hi": pl.Float64, "n": pl.Int64}
PREDICTION_COLUMNS = ("attempt_uid", "judge", "condition", "p_accept", "y", "participant", "problem_id", "turn",
                      "evidence", "code")
PANEL = "panel"


@dataclass(frozen=True)
class MeasurementConfig:
    folds: int = 10
    resamples: int = 2000
    seed: int = 20260314
    confident: float = 0.2  # confident errors: p <= 0.2 on accepted, p >= 1 - 0.2 on rejected
    problem_resamples: int = 2000


@dataclass
class Cell:
    """One judge under one condition, on the attempts it has."""

    judge: str
    condition: str
    index: np.ndarray  # positions in the attempt universe
    p: np.ndarray
    y: np.ndarray


SCALAR_METRICS = {
    "roc_auc": lambda c, w, d: m.roc_auc(c.p, c.y, w),
    "pr_auc": lambda c, w, d: m.average_precision(c.p, c.y, w),
    "log_loss": lambda c, w, d: m.log_loss(c.p, c.y, w),
    "brier": lambda c, w, d: m.brier(c.p, c.y, w),
    "ece15": lambda c, w, d: calibration.ece(c.p, c.y, calibration.ECE_BINS, w),
    "mcc_in_fold": lambda c, w, d: m.in_fold_mcc(c.p, c.y, w),
    "mcc_oof": lambda c, w, d: m.mcc(d, c.y, w),
    "base_rate": lambda c, w, d: m.weighted_mean(c.y.astype(np.float64), w),
    "mean_p": lambda c, w, d: m.weighted_mean(c.p, w),
}


class Universe:
    """The attempts, their clusters and folds, and the predictions as cells."""

    def __init__(self, predictions: pl.DataFrame, config: MeasurementConfig):
        attempts = (predictions.select("attempt_uid", "y", "participant", "problem_id", "turn", "evidence")
                    .unique("attempt_uid").sort("attempt_uid"))
        self.attempts = attempts
        self.uids = attempts["attempt_uid"].to_numpy()
        self.y = attempts["y"].to_numpy().astype(np.int64)
        self.trajectory = m.cluster_codes(attempts["participant"].to_numpy(), attempts["problem_id"].to_numpy())
        self.problem = m.cluster_codes(attempts["problem_id"].to_numpy())
        self.evidence = attempts["evidence"].fill_null(False).to_numpy().astype(bool)
        self.folds = m.grouped_folds(self.trajectory, config.folds, config.seed)
        position = {uid: i for i, uid in enumerate(self.uids)}
        self.cells: dict[tuple[str, str], Cell] = {}
        for (judge, condition), part in predictions.group_by("judge", "condition", maintain_order=True):
            part = part.filter(pl.col("p_accept").is_not_null()).sort("attempt_uid")
            index = np.array([position[u] for u in part["attempt_uid"].to_list()], dtype=np.int64)
            self.cells[(judge, condition)] = Cell(judge, condition, index, part["p_accept"].to_numpy(),
                                                  self.y[index])
        self.judges = sorted({j for j, _ in self.cells})
        self.conditions = sorted({c for _, c in self.cells}, key=_condition_order)

    def common(self, condition: str) -> tuple[np.ndarray, dict[str, np.ndarray]]:
        """Attempts every judge has under ``condition``, and each judge's p on them."""
        cells = [self.cells[(j, condition)] for j in self.judges if (j, condition) in self.cells]
        shared = cells[0].index
        for cell in cells[1:]:
            shared = np.intersect1d(shared, cell.index)
        preds = {c.judge: c.p[np.searchsorted(c.index, shared)] for c in cells}
        return shared, preds


def _condition_order(condition: str) -> tuple[int, str]:
    known = ["blind", "prefix12k", "nonblind"]
    return (known.index(condition) if condition in known else len(known), condition)


def _panel_score(preds: dict[str, np.ndarray]) -> np.ndarray:
    return np.mean([agreement.percentile_ranks(p) for p in preds.values()], axis=0)


class Replicates:
    """Bootstrap replicates collected block by block, keyed by name."""

    def __init__(self):
        self.values: dict[tuple, list[np.ndarray]] = {}

    def add(self, key: tuple, block: np.ndarray) -> None:
        self.values.setdefault(key, []).append(np.asarray(block, dtype=np.float64))

    def get(self, key: tuple) -> np.ndarray:
        return np.concatenate(self.values[key]) if key in self.values else np.array([])


def _row(judge, condition, metric, value, replicates: np.ndarray, n, **extra) -> dict:
    lo, hi = m.interval(replicates) if len(replicates) else (float("nan"), float("nan"))
    return {"judge": judge, "condition": condition, "metric": metric, "value": float(value), "lo": lo, "hi": hi,
            "n": int(n), **extra}


def measure(predictions: pl.DataFrame, config: MeasurementConfig = MeasurementConfig()) -> dict[str, pl.DataFrame]:
    """Every table of the measurement group, in long form."""
    u = Universe(predictions, config)
    decisions, thresholds = {}, {}
    for key, cell in u.cells.items():
        decisions[key], thresholds[key] = m.oof_decisions(cell.p, cell.y, u.folds[cell.index])
    commons = {c: u.common(c) for c in u.conditions}
    panels = {c: _panel_score(preds) for c, (_, preds) in commons.items()}

    boot = Replicates()
    for w in m.cluster_weights(u.trajectory, config.resamples, config.seed):
        for key, cell in u.cells.items():
            wc = w[:, cell.index]
            for name, fn in SCALAR_METRICS.items():
                boot.add((*key, name), fn(cell, wc, decisions[key]))
            subset = u.evidence[cell.index]
            boot.add((*key, "roc_auc_evidence"), m.roc_auc(cell.p[subset], cell.y[subset], wc[:, subset]))
        for condition, (shared, preds) in commons.items():
            ws = w[:, shared]
            y = u.y[shared]
            boot.add((PANEL, condition, "roc_auc"), m.roc_auc(panels[condition], y, ws))
            boot.add((PANEL, condition, "roc_auc_evidence"),
                     m.roc_auc(panels[condition][u.evidence[shared]], y[u.evidence[shared]],
                               ws[:, u.evidence[shared]]))
            for judge, p in preds.items():
                boot.add(("member", judge, condition, "roc_auc"), m.roc_auc(p, y, ws))
            if len(preds) >= 2:
                pairs = agreement.pairwise_agreement(preds, ws)
                for pair in pairs:
                    boot.add(("pair", pair["judge_a"], pair["judge_b"], condition, "kappa"), pair["kappa"])
                    boot.add(("pair", pair["judge_a"], pair["judge_b"], condition, "rho"), pair["rho"])
                # panel_agreement's figures from the pairs just computed (it would recompute every pair)
                cuts = np.column_stack([agreement.median_cut(p) for p in preds.values()])
                mean_kappa = np.mean([pair["kappa"] for pair in pairs], axis=0)
                mean_rho = np.mean([pair["rho"] for pair in pairs], axis=0)
                for name, values in (("fleiss_kappa", agreement.fleiss_kappa(cuts, ws)), ("mean_kappa", mean_kappa),
                                     ("mean_rho", mean_rho), ("rho_minus_kappa", mean_rho - mean_kappa)):
                    boot.add(("panel_agreement", condition, name), values)
        for judge in u.judges:
            for a, b in combinations(u.conditions, 2):
                if (judge, a) in u.cells and (judge, b) in u.cells:
                    shared = np.intersect1d(u.cells[(judge, a)].index, u.cells[(judge, b)].index)
                    pa = u.cells[(judge, a)].p[np.searchsorted(u.cells[(judge, a)].index, shared)]
                    pb = u.cells[(judge, b)].p[np.searchsorted(u.cells[(judge, b)].index, shared)]
                    boot.add(("rank_corr", judge, a, b), agreement.spearman(pa, pb, w[:, shared]))
    problem_boot = Replicates()
    for w in m.cluster_weights(u.problem, config.problem_resamples, config.seed + 1):
        for key, cell in u.cells.items():
            for name in ("roc_auc", "pr_auc", "log_loss", "brier", "ece15", "mcc_oof"):
                problem_boot.add((*key, name), SCALAR_METRICS[name](cell, w[:, cell.index], decisions[key]))

    tables = {
        "judge_metrics": _judge_metrics(u, decisions, thresholds, boot, problem_boot),
        "scale_validity": _scale_validity(u, boot, decisions),
        "agreement": _agreement(u, commons, boot),
        "condition_effects": _condition_effects(u, commons, boot),
        "panel": _panel(u, commons, panels, decisions, boot),
        "per_problem": _per_problem(u),
        "consistency": _consistency(predictions),
        "error_profile": _error_profile(u, decisions, config),
        "recalibration": _recalibration(u),
    }
    return tables


def _judge_metrics(u, decisions, thresholds, boot, problem_boot) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        for name, fn in SCALAR_METRICS.items():
            value = fn(cell, None, decisions[key])
            lo_p, hi_p = m.interval(problem_boot.get((*key, name))) if (*key, name) in problem_boot.values \
                else (float("nan"), float("nan"))
            rows.append(_row(*key, name, value, boot.get((*key, name)), len(cell.p), lo_problem=lo_p,
                             hi_problem=hi_p))
        threshold_values = list(thresholds[key].values())
        rows.append(_row(*key, "threshold_in_fold", m.select_threshold(cell.p, cell.y), np.array([]), len(cell.p),
                         lo_problem=None, hi_problem=None))
        rows.append({"judge": key[0], "condition": key[1], "metric": "threshold_oof_median",
                     "value": float(np.median(threshold_values)), "lo": float(min(threshold_values)),
                     "hi": float(max(threshold_values)), "n": len(threshold_values), "lo_problem": None,
                     "hi_problem": None})
    schema = {**LONG_SCHEMA, "lo_problem": pl.Float64, "hi_problem": pl.Float64}
    return pl.DataFrame(rows, schema=schema)


def _scale_validity(u, boot, decisions) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        validity = calibration.scale_validity(cell.p, cell.y)
        for name in ("distinct_values", "effective_rules", "share_at_zero", "share_at_one"):
            rows.append(_row(*key, name, validity[name], np.array([]), len(cell.p)))
        in_fold = boot.get((*key, "mcc_in_fold"))
        oof = boot.get((*key, "mcc_oof"))
        value = m.in_fold_mcc(cell.p, cell.y) - m.mcc(decisions[key], cell.y)
        rows.append(_row(*key, "mcc_drop_in_fold_to_oof", value, in_fold - oof, len(cell.p)))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _agreement(u, commons, boot) -> pl.DataFrame:
    rows = []
    for condition, (shared, preds) in commons.items():
        if len(preds) < 2:
            continue
        for pair in agreement.pairwise_agreement(preds):
            label = f"{pair['judge_a']}~{pair['judge_b']}"
            for name in ("kappa", "rho"):
                rows.append(_row(label, condition, f"pairwise_{name}", pair[name],
                                 boot.get(("pair", pair["judge_a"], pair["judge_b"], condition, name)), len(shared)))
        for name, value in agreement.panel_agreement(preds).items():
            rows.append(_row(PANEL, condition, name, value, boot.get(("panel_agreement", condition, name)),
                             len(shared)))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _condition_effects(u, commons, boot) -> pl.DataFrame:
    rows = []
    for judge in u.judges:
        for a, b in combinations(u.conditions, 2):
            if (judge, a) not in u.cells or (judge, b) not in u.cells:
                continue
            label = f"{b} - {a}"
            for metric in ("roc_auc", "roc_auc_evidence"):
                ca, cb = u.cells[(judge, a)], u.cells[(judge, b)]
                if metric == "roc_auc":
                    value = m.roc_auc(cb.p, cb.y) - m.roc_auc(ca.p, ca.y)
                else:
                    ea, eb = u.evidence[ca.index], u.evidence[cb.index]
                    value = m.roc_auc(cb.p[eb], cb.y[eb]) - m.roc_auc(ca.p[ea], ca.y[ea])
                diff = boot.get((judge, b, metric)) - boot.get((judge, a, metric))
                n = int(u.evidence[cb.index].sum()) if metric == "roc_auc_evidence" else len(cb.p)
                rows.append(_row(judge, label, f"delta_{metric}", value, diff, n))
            shared = np.intersect1d(u.cells[(judge, a)].index, u.cells[(judge, b)].index)
            pa = u.cells[(judge, a)].p[np.searchsorted(u.cells[(judge, a)].index, shared)]
            pb = u.cells[(judge, b)].p[np.searchsorted(u.cells[(judge, b)].index, shared)]
            rows.append(_row(judge, label, "rank_correlation", agreement.spearman(pa, pb),
                             boot.get(("rank_corr", judge, a, b)), len(shared)))
    for a, b in combinations(u.conditions, 2):
        if len(commons[a][1]) >= 2 and len(commons[b][1]) >= 2:
            value = (agreement.panel_agreement(commons[b][1])["fleiss_kappa"]
                     - agreement.panel_agreement(commons[a][1])["fleiss_kappa"])
            diff = boot.get(("panel_agreement", b, "fleiss_kappa")) - boot.get(("panel_agreement", a, "fleiss_kappa"))
            rows.append(_row(PANEL, f"{b} - {a}", "delta_fleiss_kappa", value, diff, len(commons[b][0])))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _panel(u, commons, panels, decisions, boot) -> pl.DataFrame:
    rows = []
    for condition, (shared, preds) in commons.items():
        y = u.y[shared]
        score = panels[condition]
        panel_auc = m.roc_auc(score, y)
        rows.append(_row(PANEL, condition, "roc_auc", panel_auc, boot.get((PANEL, condition, "roc_auc")),
                         len(shared)))
        ev = u.evidence[shared]
        rows.append(_row(PANEL, condition, "roc_auc_evidence", m.roc_auc(score[ev], y[ev]),
                         boot.get((PANEL, condition, "roc_auc_evidence")), int(ev.sum())))
        rows.append(_row(PANEL, condition, "pr_auc", m.average_precision(score, y), np.array([]), len(shared)))
        if len(preds) < 2:
            continue
        members = {j: m.roc_auc(p, y) for j, p in preds.items()}
        member_boot = {j: boot.get(("member", j, condition, "roc_auc")) for j in preds}
        mean_member = np.mean(list(members.values()))
        rows.append(_row(PANEL, condition, "mean_member_roc_auc", mean_member,
                         np.mean(list(member_boot.values()), axis=0), len(shared)))
        rows.append(_row(PANEL, condition, "gain_over_mean_member", panel_auc - mean_member,
                         boot.get((PANEL, condition, "roc_auc")) - np.mean(list(member_boot.values()), axis=0),
                         len(shared)))
        best = max(members, key=members.get)
        rows.append(_row(best, condition, "best_member_roc_auc", members[best], member_boot[best], len(shared)))
        rows.append(_row(best, condition, "panel_minus_best_member", panel_auc - members[best],
                         boot.get((PANEL, condition, "roc_auc")) - member_boot[best], len(shared)))
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _per_problem(u) -> pl.DataFrame:
    rows = []
    problems = u.attempts["problem_id"].to_numpy()
    for key, cell in u.cells.items():
        aucs = []
        for problem in np.unique(problems[cell.index]):
            mine = problems[cell.index] == problem
            y = cell.y[mine]
            auc = m.roc_auc(cell.p[mine], y) if 0 < y.sum() < len(y) else float("nan")
            rows.append({"judge": key[0], "condition": key[1], "problem_id": str(problem), "metric": "roc_auc",
                         "value": auc, "n": int(mine.sum()), "accepted": int(y.sum()),
                         "inverted": bool(np.isfinite(auc) and auc < 0.5)})
            if np.isfinite(auc):
                aucs.append(auc)
        rows.append({"judge": key[0], "condition": key[1], "problem_id": "(macro)", "metric": "roc_auc_macro",
                     "value": float(np.mean(aucs)) if aucs else float("nan"), "n": len(aucs), "accepted": None,
                     "inverted": None})
    return pl.DataFrame(rows, schema={"judge": pl.String, "condition": pl.String, "problem_id": pl.String,
                                      "metric": pl.String, "value": pl.Float64, "n": pl.Int64,
                                      "accepted": pl.Int64, "inverted": pl.Boolean})


def _consistency(predictions: pl.DataFrame) -> pl.DataFrame:
    """Character-identical consecutive resubmissions in a trajectory, and how far p moved between them."""
    rows = []
    ordered = predictions.sort("judge", "condition", "participant", "problem_id", "turn")
    pairs = ordered.with_columns(
        pl.col("code").shift(1).over("judge", "condition", "participant", "problem_id").alias("previous_code"),
        pl.col("p_accept").shift(1).over("judge", "condition", "participant", "problem_id").alias("previous_p"),
    ).filter(pl.col("previous_code").is_not_null() & (pl.col("code") == pl.col("previous_code")))
    for (judge, condition), part in ordered.group_by("judge", "condition", maintain_order=True):
        mine = pairs.filter((pl.col("judge") == judge) & (pl.col("condition") == condition))
        moves = (mine["p_accept"] - mine["previous_p"]).abs().to_numpy() if len(mine) else np.array([])
        for metric, value in (("identical_resubmissions", float(len(mine))),
                              ("mean_abs_move", float(moves.mean()) if len(moves) else float("nan")),
                              ("max_abs_move", float(moves.max()) if len(moves) else float("nan")),
                              ("share_moved", float((moves > 0).mean()) if len(moves) else float("nan"))):
            rows.append({"judge": judge, "condition": condition, "metric": metric, "value": value, "lo": None,
                         "hi": None, "n": len(mine)})
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def run_to_run(cache: pl.DataFrame) -> pl.DataFrame:
    """Krippendorff's alpha (interval) between repeated runs (epochs) of one judge on the same requests."""
    rows = []
    valid = cache.filter(pl.col("status") == "ok")
    for (judge, condition), part in valid.group_by("judge", "condition", maintain_order=True):
        epochs = sorted(part["epoch"].unique().to_list())
        if len(epochs) < 2:
            rows.append({"judge": judge, "condition": condition, "metric": "run_to_run_alpha", "value": None,
                         "lo": None, "hi": None, "n": len(epochs)})
            continue
        wide = part.pivot(on="epoch", index=["attempt_uid", "request_hash"], values="p_accept")
        runs = wide.select([str(e) for e in epochs]).to_numpy().T.astype(np.float64)
        rows.append({"judge": judge, "condition": condition, "metric": "run_to_run_alpha",
                     "value": agreement.krippendorff_alpha(runs), "lo": None, "hi": None, "n": len(epochs)})
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _error_profile(u, decisions, config: MeasurementConfig) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        yhat, y, p = decisions[key], cell.y, cell.p
        counts = {"tp": int(((yhat == 1) & (y == 1)).sum()), "fp": int(((yhat == 1) & (y == 0)).sum()),
                  "tn": int(((yhat == 0) & (y == 0)).sum()), "fn": int(((yhat == 0) & (y == 1)).sum()),
                  "confident_fn": int(((p <= config.confident) & (y == 1)).sum()),
                  "confident_fp": int(((p >= 1 - config.confident) & (y == 0)).sum())}
        for metric, value in counts.items():
            rows.append({"judge": key[0], "condition": key[1], "metric": metric, "value": float(value), "lo": None,
                         "hi": None, "n": len(p)})
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def _recalibration(u) -> pl.DataFrame:
    rows = []
    for key, cell in u.cells.items():
        for summary in calibration.recalibration_summary(cell.p, cell.y, u.folds[cell.index]):
            for metric in ("ece", "brier", "roc_auc"):
                rows.append({"judge": key[0], "condition": key[1], "metric": f"{metric}_{summary['method']}",
                             "value": float(summary[metric]), "lo": None, "hi": None, "n": len(cell.p)})
    return pl.DataFrame(rows, schema=LONG_SCHEMA)


def headline_table(judge_metrics: pl.DataFrame, condition: str) -> pl.DataFrame:
    """Table VI of the seed study for one condition: value [lo, hi] per judge and metric."""
    wanted = ["roc_auc", "pr_auc", "log_loss", "brier", "ece15", "mcc_in_fold", "mcc_oof"]
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
