"""Coverage of the analytic intervals clustered by trajectory (core/stats/analytic.py), by simulation.

Usage: .venv/bin/python bench/analytic_coverage.py [--replications 1000] [--attempts 5000 20000]

Studies of N attempts in trajectories of 3 that share a random effect on the label and the score (so the
attempts of a trajectory are dependent, as in a course); two judges (a sharper and a noisier one, scores on the
0.01 grid as LLM judges answer, both miscalibrated). The true value of each metric is the metric on one study of
2,000,000 attempts of the same model. Each replication computes every metric's 95% interval as measurement does
at n >= analytic_from (value +- t_{G-1} SE, SE from the cluster totals of the influences) and counts whether it
holds the truth. Prints coverage and its Monte Carlo standard error per metric and N, and the mean width.

The agreement figures between the two judges (core/measurement/agreement.py) are covered the same way: Spearman's
rho, and Cohen's and Fleiss' kappa of the median cuts. Measurement takes the cuts once, on the data, and holds them
fixed (the bootstrap does too), so their intervals are for the population's kappa at the study's cuts: the truth
of the rows "kappa" and "fleiss_kappa" is the 2,000,000-attempt study's kappa at the replication's cuts (scores on
the 0.01 grid: one table of joint counts gives it for any pair of cuts). The rows "... at population medians"
compare the same intervals with the kappa at the population's median cuts, which they do not claim to hold.

``--in-fold-mcc`` covers the in-fold MCC alone (cheap at large N): its coverage, and the estimate's bias over its
mean standard error (the selected threshold's optimism, which the analytic interval ignores), per judge and N;
with ``--bootstrap B`` also the coverage of the trajectory bootstrap's percentile interval (B resamples, the
threshold re-selected in each, as measurement does below analytic_from). ``--agreement`` covers the agreement
figures alone; ``--correlation`` the correlation table's corpus level alone (Kendall's tau-b, Spearman and
Pearson of the label and the score, core/measurement/correlation.py), whose truth is scipy's on the 2,000,000.
``--problems K ...`` covers ROC-AUC and the paired difference clustered by problem (measurement's ``lo_problem``,
findings' problem scheme) on studies whose trajectories are spread over K problems with their own effects
(:func:`problem_study`).
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

import numpy as np  # noqa: E402

from cojudge_assets.core.measurement import agreement, calibration  # noqa: E402
from cojudge_assets.core.measurement.correlation import _scipy_statistics  # noqa: E402
from cojudge_assets.core.stats import analytic as an  # noqa: E402
from cojudge_assets.core.stats import metrics as m  # noqa: E402
from cojudge_assets.core.stats.bootstrap import cluster_weights, interval  # noqa: E402

THRESHOLD = 0.5  # the out-of-fold decisions: a fixed cut, as the folds' thresholds are given to the interval


def study(rng: np.random.Generator, attempts: int):
    trajectories = attempts // 3
    effect = np.repeat(rng.normal(0, 1, trajectories), 3)
    y = (rng.random(3 * trajectories) < 1 / (1 + np.exp(-(effect - 0.4)))).astype(np.int64)
    judges = []
    for sharpness, noise in ((1.6, 0.8), (0.9, 1.3)):
        z = sharpness * y - 0.5 + 0.6 * effect + rng.normal(0, noise, len(y))
        judges.append(np.clip(np.round(1 / (1 + np.exp(-z)), 2), 0, 1))
    return y, judges, np.repeat(np.arange(trajectories), 3)


def figures(y: np.ndarray, p: np.ndarray) -> dict[str, tuple[float, np.ndarray]]:
    """metric -> (value, influences) for one judge."""
    d = (p >= THRESHOLD).astype(np.int64)
    return {
        "roc_auc": (m.roc_auc(y, p), an.roc_auc_influence(y, p)),
        "pr_auc": (m.average_precision(y, p), an.average_precision_influence(y, p)),
        "log_loss": (m.log_loss(y, p), an.log_loss_influence(y, p)),
        "brier": (m.brier(y, p), an.mean_influence((p - y) ** 2)),
        "ece15": (calibration.ece(y, p), an.ece_influence(y, p, calibration.ECE_BINS)),
        "mcc_in_fold": (m.in_fold_mcc(y, p), an.in_fold_mcc_influence(y, p)),
        "mcc_oof": (m.mcc(y, d), an.mcc_influence(y, d)),
        "base_rate": (float(y.mean()), an.mean_influence(y)),
        "mean_p": (float(p.mean()), an.mean_influence(p)),
        **correlation_figures(y, p),
    }


def correlation_figures(y: np.ndarray, p: np.ndarray) -> dict[str, tuple[float, np.ndarray]]:
    """The correlation table's corpus level (core/measurement/correlation.py): the label against the score."""
    tau, rho, r = _scipy_statistics(y, p)
    return {
        "kendall_tau_b_corpus": (tau, an.kendall_tau_b_influence(y, p)),
        "spearman_corpus": (rho, an.spearman_influence(y, p)),
        "pearson_corpus": (r, an.pearson_influence(y, p)),
    }


class Population:
    """The truth: every metric on one study of 2,000,000 attempts, and its joint table of the two judges' scores."""

    def __init__(self, seed: int):
        y, judges, _ = study(np.random.default_rng(seed), 2_000_000)
        self.truth: dict[str, float] = {}
        for j, p in enumerate(judges):
            self.truth.update({f"{name} ({'ab'[j]})": value for name, (value, _) in figures(y, p).items()})
        self.truth["delta_roc_auc (b - a)"] = m.roc_auc(y, judges[1]) - m.roc_auc(y, judges[0])
        self.truth["spearman (a~b)"] = float(agreement.spearman(judges[0], judges[1]))
        grid = [np.rint(p * 100).astype(np.int64) for p in judges]
        joint = np.bincount(grid[0] * 101 + grid[1], minlength=101 * 101).reshape(101, 101) / len(y)
        self.at_least = joint[::-1, ::-1].cumsum(0).cumsum(1)[::-1, ::-1]  # [s, t]: P(a >= s/100, b >= t/100)
        medians = [float(np.median(p)) for p in judges]
        self.truth.update(self.kappas(*medians, suffix=" at population medians"))
        self.truth.update({"kappa (a~b)": float("nan"), "fleiss_kappa (a, b)": float("nan")})  # per replication

    def kappas(self, cut_a: float, cut_b: float, suffix: str = "") -> dict[str, float]:
        """Cohen's and Fleiss' kappa of the decisions ``p >= cut`` on the population."""
        s, t = round(cut_a * 100), round(cut_b * 100)
        both, share_a, share_b = self.at_least[s, t], self.at_least[s, 0], self.at_least[0, t]
        observed = 1 - share_a - share_b + 2 * both
        expected = share_a * share_b + (1 - share_a) * (1 - share_b)
        share_1 = (share_a + share_b) / 2
        chance = share_1**2 + (1 - share_1) ** 2
        return {
            f"kappa (a~b){suffix}": (observed - expected) / (1 - expected),
            f"fleiss_kappa (a, b){suffix}": (observed - chance) / (1 - chance),
        }


def agreement_figures(judges: list[np.ndarray]) -> dict[str, tuple[float, np.ndarray]]:
    """figure -> (value, influences) for the agreement of the two judges, cuts at the study's medians."""
    cuts = [agreement.median_cut(p) for p in judges]
    kappa = (float(agreement.cohen_kappa(*cuts)), an.cohen_kappa_influence(*cuts))
    ratings = np.column_stack(cuts)
    fleiss = (float(agreement.fleiss_kappa(ratings)), an.fleiss_kappa_influence(ratings))
    return {
        "spearman (a~b)": (float(agreement.spearman(*judges)), an.spearman_influence(*judges)),
        "kappa (a~b)": kappa,
        "fleiss_kappa (a, b)": fleiss,
        "kappa (a~b) at population medians": kappa,
        "fleiss_kappa (a, b) at population medians": fleiss,
    }


def in_fold_mcc(args: argparse.Namespace) -> None:
    y, judges, _ = study(np.random.default_rng(args.seed + 10_000), 2_000_000)
    truth = [m.in_fold_mcc(y, p) for p in judges]
    print(f"{args.replications} replications, in-fold MCC only, 95% intervals, truth from 2,000,000 attempts")
    print(
        f"{'judge':<8}{'N':>8}{'coverage':>18}{'bias':>10}{'mean SE':>10}{'bias/SE':>9}{'SD':>9}"
        + (f"{'bootstrap coverage':>22}" if args.bootstrap else "")
    )
    for attempts in args.attempts:
        rng = np.random.default_rng(args.seed + attempts)
        values: list[list[float]] = [[], []]
        errors: list[list[float]] = [[], []]
        hits, boot_hits = [0, 0], [0, 0]
        for r in range(args.replications):
            y, judges, clusters = study(rng, attempts)
            g = int(clusters.max()) + 1
            for j, p in enumerate(judges):
                value = m.in_fold_mcc(y, p)
                totals = an.cluster_totals(an.in_fold_mcc_influence(y, p), clusters, g)
                lo, hi = an.interval_from_totals(value, totals)
                hits[j] += lo <= truth[j] <= hi
                if args.bootstrap:
                    weights = cluster_weights(clusters, args.bootstrap, seed=r)
                    lo, hi = interval(np.concatenate([m.in_fold_mcc(y, p, sample_weight=w) for w in weights]))
                    boot_hits[j] += lo <= truth[j] <= hi
                values[j].append(value)
                errors[j].append(np.sqrt(an.clustered_variance(totals)))
        for j in range(2):
            c, b = hits[j] / args.replications, boot_hits[j] / args.replications
            bias, se = float(np.mean(values[j]) - truth[j]), float(np.mean(errors[j]))
            print(
                f"{'ab'[j]:<8}{attempts:>8}{f'{c:.3f} ± {np.sqrt(c * (1 - c) / args.replications):.3f}':>18}"
                f"{bias:>10.4f}{se:>10.4f}{bias / se:>9.2f}{np.std(values[j], ddof=1):>9.4f}"
                + (f"{f'{b:.3f} ± {np.sqrt(b * (1 - b) / args.replications):.3f}':>22}" if args.bootstrap else ""),
                flush=True,
            )


def problem_study(rng: np.random.Generator, attempts: int, problems: int):
    """:func:`study`'s model with the trajectories spread over ``problems`` problems, each with its own effect on
    the label and the score (problems differ in difficulty and in how the judges read them): the attempts of a
    problem are dependent, and resampling problems (measurement's lo_problem, findings' problem scheme) is the
    scheme that sees it. Returns y, the two judges' scores, the trajectory codes and the problem codes."""
    trajectories = attempts // 3
    problem = rng.integers(0, problems, trajectories)
    difficulty, reading = rng.normal(0, 0.7, problems), rng.normal(0, 0.5, (2, problems))
    effect = np.repeat(rng.normal(0, 1, trajectories) + difficulty[problem], 3)
    y = (rng.random(3 * trajectories) < 1 / (1 + np.exp(-(effect - 0.4)))).astype(np.int64)
    at = np.repeat(problem, 3)
    judges = []
    for j, (sharpness, noise) in enumerate(((1.6, 0.8), (0.9, 1.3))):
        z = sharpness * y - 0.5 + 0.6 * effect + reading[j][at] + rng.normal(0, noise, len(y))
        judges.append(np.clip(np.round(1 / (1 + np.exp(-z)), 2), 0, 1))
    return y, judges, np.repeat(np.arange(trajectories), 3), at


def by_problem(args: argparse.Namespace) -> None:
    """ROC-AUC and the paired difference of two judges' ROC-AUCs, the interval clustered by problem (G = the
    study's problems, t_{G-1}), against the truth of a population of 20,000 problems (2,000,000 attempts)."""
    y, judges, _, _ = problem_study(np.random.default_rng(args.seed + 10_000), 2_000_000, 20_000)
    truth = {"roc_auc (a)": m.roc_auc(y, judges[0]), "roc_auc (b)": m.roc_auc(y, judges[1])}
    truth["delta_roc_auc (b - a)"] = truth["roc_auc (b)"] - truth["roc_auc (a)"]
    print(f"{args.replications} replications, intervals clustered by problem, truth from 20,000 problems", flush=True)
    for problems in args.problems:
        for attempts in args.attempts:
            rng = np.random.default_rng(args.seed + attempts + problems)
            hits = {name: 0 for name in truth}
            boot_hits = {name: 0 for name in truth}
            widths: dict[str, list[float]] = {name: [] for name in truth}
            for _ in range(args.replications):
                y, judges, _, problem = problem_study(rng, attempts, problems)
                g = int(problem.max()) + 1
                totals = [an.cluster_totals(an.roc_auc_influence(y, p), problem, g) for p in judges]
                values = [m.roc_auc(y, p) for p in judges]
                figures = {
                    "roc_auc (a)": (values[0], totals[0]),
                    "roc_auc (b)": (values[1], totals[1]),
                    "delta_roc_auc (b - a)": (values[1] - values[0], totals[1] - totals[0]),
                }
                for name, (value, t) in figures.items():
                    lo, hi = an.interval_from_totals(value, t)
                    hits[name] += lo <= truth[name] <= hi
                    widths[name].append(hi - lo)
                if args.bootstrap:  # the problem bootstrap's percentile interval on the same study
                    reps: list[list[np.ndarray]] = [[], []]
                    for w in cluster_weights(problem, args.bootstrap, seed=int(rng.integers(2**31))):
                        for j, p in enumerate(judges):
                            reps[j].append(m.roc_auc(y, p, sample_weight=w))
                    a, b = np.concatenate(reps[0]), np.concatenate(reps[1])
                    for name, r in (("roc_auc (a)", a), ("roc_auc (b)", b), ("delta_roc_auc (b - a)", b - a)):
                        lo, hi = interval(r)
                        boot_hits[name] += lo <= truth[name] <= hi
            for name in truth:
                c = hits[name] / args.replications
                se = np.sqrt(c * (1 - c) / args.replications)
                b = boot_hits[name] / args.replications
                boot = (
                    f"   bootstrap {b:.3f} ± {np.sqrt(b * (1 - b) / args.replications):.3f}" if args.bootstrap else ""
                )
                print(
                    f"  problems={problems:<5} N={attempts:<8} {name:<24}{c:.3f} ± {se:.3f} "
                    f"(w {np.mean(widths[name]):.4f}){boot}",
                    flush=True,
                )


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--replications", type=int, default=1000)
    parser.add_argument("--attempts", type=int, nargs="*", default=[5000, 20000])
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--in-fold-mcc", action="store_true", help="the in-fold MCC alone, with its bias")
    parser.add_argument("--agreement", action="store_true", help="the agreement figures alone")
    parser.add_argument("--correlation", action="store_true", help="the correlation table's corpus level alone")
    parser.add_argument(
        "--bootstrap", type=int, default=0, help="with --in-fold-mcc or --problems: B bootstrap resamples"
    )
    parser.add_argument(
        "--problems", type=int, nargs="*", default=[], help="ROC-AUC clustered by problem, studies of K problems"
    )
    args = parser.parse_args()
    if args.problems:
        by_problem(args)
        return
    if args.in_fold_mcc:
        in_fold_mcc(args)
        return
    population = Population(args.seed + 10_000)
    truth = population.truth
    if args.agreement:
        truth = {name: value for name, value in truth.items() if "~" in name or "fleiss" in name}
    if args.correlation:
        truth = {name: value for name, value in truth.items() if "_corpus" in name}
    print(
        f"{args.replications} replications, trajectories of 3 attempts, 95% intervals, truth from 2,000,000 attempts",
        flush=True,
    )
    results: dict[str, list[str]] = {name: [] for name in truth}
    for attempts in args.attempts:
        rng = np.random.default_rng(args.seed + attempts)
        hits = {name: 0 for name in truth}
        widths: dict[str, list[float]] = {name: [] for name in truth}
        for _ in range(args.replications):
            y, judges, clusters = study(rng, attempts)
            g = int(clusters.max()) + 1
            totals_auc = []
            for j, p in enumerate(judges if not args.agreement else ()):
                chosen = correlation_figures(y, p) if args.correlation else figures(y, p)
                for name, (value, influence) in chosen.items():
                    totals = an.cluster_totals(influence, clusters, g)
                    if name == "roc_auc":
                        totals_auc.append((value, totals))
                    lo, hi = an.interval_from_totals(value, totals)
                    key = f"{name} ({'ab'[j]})"
                    hits[key] += lo <= truth[key] <= hi
                    widths[key].append(hi - lo)
            if totals_auc:
                value = totals_auc[1][0] - totals_auc[0][0]
                lo, hi = an.interval_from_totals(value, totals_auc[1][1] - totals_auc[0][1])
                hits["delta_roc_auc (b - a)"] += lo <= truth["delta_roc_auc (b - a)"] <= hi
                widths["delta_roc_auc (b - a)"].append(hi - lo)
            here = truth | population.kappas(*(float(np.median(p)) for p in judges))  # the cuts this study takes
            for key, (value, influence) in (agreement_figures(judges) if not args.correlation else {}).items():
                lo, hi = an.interval_from_totals(value, an.cluster_totals(influence, clusters, g))
                hits[key] += lo <= here[key] <= hi
                widths[key].append(hi - lo)
        print(f"N={attempts}", flush=True)
        for name in truth:
            c = hits[name] / args.replications
            se = np.sqrt(c * (1 - c) / args.replications)
            results[name].append(f"{c:.3f} ± {se:.3f} (w {np.mean(widths[name]):.4f})")
            print(f"  {name:<42}{results[name][-1]:>30}", flush=True)
    print(f"{'metric':<42}" + "".join(f"{'N=' + str(n):>30}" for n in args.attempts))
    for name, cells in results.items():
        print(f"{name:<42}" + "".join(f"{cell:>30}" for cell in cells))


if __name__ == "__main__":
    main()
