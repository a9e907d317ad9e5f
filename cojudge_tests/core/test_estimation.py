"""Pass rates from few labels (core/design/estimation.py): PPI++ against ppi_python, coverage on synthetic data with a
known truth, the labels-saved definition, and input errors."""

import numpy as np
import polars as pl
import pytest
from scipy import stats

from cojudge_assets.core.design.estimation import (
    EstimationConfig,
    estimate_pass_rates,
    estimation_frame,
    labels_saved,
    ppi_mean_interval,
    simulate_cell,
)


def synthetic_population(size: int, *, base_rate: float = 0.4, seed: int = 7):
    """Labels with a known pass rate and an informative but imperfect judge (p from two overlapping Betas)."""
    rng = np.random.default_rng(seed)
    y = (rng.random(size) < base_rate).astype(float)
    p = np.where(y == 1, rng.beta(5, 2, size), rng.beta(2, 5, size))
    return y, p


@pytest.mark.parametrize(("n", "big_n", "alpha", "seed"), [(10, 40, 0.05, 0), (50, 1000, 0.1, 1), (300, 200, 0.05, 2)])
def test_ppi_equals_ppi_python(n, big_n, alpha, seed):
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(seed)
    y = rng.integers(0, 2, n).astype(float)
    f = np.clip(0.5 * y + 0.5 * rng.random(n), 0, 1)
    f_unlabelled = rng.random(big_n)
    est, lo, hi = ppi_mean_interval(y, f, f_unlabelled, alpha=alpha)
    ref = float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, f, f_unlabelled, lam=None)))
    ref_lo, ref_hi = (float(np.squeeze(v)) for v in ppi_py.ppi_mean_ci(y, f, f_unlabelled, alpha=alpha, lam=None))
    assert est == pytest.approx(ref, abs=1e-9)
    assert lo == pytest.approx(ref_lo, abs=1e-9)
    assert hi == pytest.approx(ref_hi, abs=1e-9)


def test_ppi_with_one_attempt_per_group_is_the_ungrouped_interval_and_copies_add_no_information():
    rng = np.random.default_rng(3)
    y = rng.integers(0, 2, 60).astype(float)
    f = np.clip(0.6 * y + 0.4 * rng.random(60), 0, 1)
    f_u = rng.random(300)
    plain = ppi_mean_interval(y, f, f_u)
    singletons = ppi_mean_interval(y, f, f_u, groups=np.arange(60), groups_unlabelled=np.arange(300))
    assert singletons == pytest.approx(plain, abs=1e-12)
    # every labelled attempt duplicated: as independent rows the interval narrows (information that is not
    # there); grouped with its copy, the cluster-robust interval keeps the width of the original sample
    naive = ppi_mean_interval(np.repeat(y, 2), np.repeat(f, 2), f_u)
    grouped = ppi_mean_interval(np.repeat(y, 2), np.repeat(f, 2), f_u, groups=np.repeat(np.arange(60), 2))
    assert grouped[0] == pytest.approx(naive[0], abs=1e-12)
    assert grouped[2] - grouped[1] > (naive[2] - naive[1]) * 1.2
    assert grouped[2] - grouped[1] == pytest.approx(plain[2] - plain[1], rel=0.1)


def test_intervals_cover_the_known_truth_at_their_nominal_level():
    """Over 600 repetitions of 150 labels out of 5000 (iid attempts): PPI++ and Rogan-Gladen 95% intervals within
    2 points of 95%, and labels alone at its own nominal 95%; the judge alone is biased and covers nothing."""
    y, p = synthetic_population(5000)
    config = EstimationConfig(budgets=(150,), repetitions=600, bootstrap=200, seed=11)
    table = simulate_cell(y, p, np.arange(len(y)), threshold=0.5, config=config)
    coverage = dict(zip(table["method"], table["coverage"]))
    for method in ("ppi", "rogan_gladen", "labels"):
        assert abs(coverage[method] - 0.95) <= 0.02, (method, coverage[method])
    assert coverage["judge"] == 0.0
    assert set(table["reps"]) == {600}
    row = table.filter(pl.col("method") == "ppi").row(0, named=True)
    assert row["truth"] == pytest.approx(y.mean())
    assert abs(row["bias"]) < 0.005
    widths = dict(zip(table["method"], table["width"]))
    assert widths["ppi"] < widths["labels"]  # an informative judge narrows the interval


def test_grouped_samples_keep_their_coverage():
    """Trajectories of 4 attempts sharing a group effect: the cluster-robust intervals still cover."""
    rng = np.random.default_rng(5)
    groups = np.repeat(np.arange(1500), 4)
    effect = rng.normal(0, 1.0, 1500)[groups]
    y = (rng.random(len(groups)) < 1 / (1 + np.exp(-(effect - 0.5)))).astype(float)
    p = np.clip(0.35 * y + 0.3 + 0.1 * effect + rng.normal(0, 0.15, len(groups)), 0, 1)
    config = EstimationConfig(budgets=(100,), repetitions=600, bootstrap=200, seed=13)
    table = simulate_cell(y, p, groups, threshold=0.5, config=config)
    coverage = dict(zip(table["method"], table["coverage"]))
    for method in ("ppi", "labels", "rogan_gladen"):
        assert abs(coverage[method] - 0.95) <= 0.025, (method, coverage[method])
    assert set(table["labels"]) == {400.0}


def test_labels_saved_is_the_label_equivalent_budget():
    rows = [
        ("labels", 25, 0.30),
        ("ppi", 25, 0.25),
        ("labels", 50, 0.20),
        ("ppi", 50, 0.10),
        ("rogan_gladen", 50, 0.40),
    ]
    estimation = pl.DataFrame(
        {
            "judge": "j",
            "condition": "blind",
            "participant": pl.Series([None] * len(rows), dtype=pl.String),
            "method": [r[0] for r in rows],
            "n": [r[1] for r in rows],
            "labels": [r[1] * 3.0 for r in rows],
            "width": [r[2] for r in rows],
            "coverage": 0.95,
        }
    )
    table = labels_saved(estimation, k=2)
    # standard errors from the widths: labels alone's t interval over 2 t_{n-1} sqrt(n/(n-1)), the others over 2 z
    t_over_z = {n: stats.t.ppf(0.975, n - 1) * np.sqrt(n / (n - 1)) / stats.norm.ppf(0.975) for n in (25, 50)}
    ppi50 = table.filter((pl.col("method") == "ppi") & (pl.col("n") == 50)).row(0, named=True)
    ratio = (0.2 / t_over_z[50] / 0.1) ** 2
    assert ppi50["n_eff"] == pytest.approx(50 * ratio)
    assert 175 < ppi50["n_eff"] < 200  # a little under 4 x 50: the t quantile's share is not counted
    assert ppi50["labels_saved"] == pytest.approx(50 * ratio - 50)
    assert ppi50["attempts_saved"] == pytest.approx(150 * (ratio - 1))
    assert ppi50["at_k"] and ppi50["first_n_at_k"] == 50
    ppi25 = table.filter((pl.col("method") == "ppi") & (pl.col("n") == 25)).row(0, named=True)
    assert ppi25["n_eff"] == pytest.approx(25 * (0.3 / t_over_z[25] / 0.25) ** 2) and not ppi25["at_k"]
    rg = table.filter(pl.col("method") == "rogan_gladen").row(0, named=True)
    assert rg["labels_saved"] < 0 and rg["first_n_at_k"] is None


def test_pass_rates_per_participant_and_budgets_capped_at_the_groups():
    rng = np.random.default_rng(2)
    participants = np.repeat([f"p{i}" for i in range(6)], 20)
    problems = np.tile(np.repeat([f"q{i}" for i in range(10)], 2), 6)
    y = rng.integers(0, 2, 120)
    predictions = pl.DataFrame(
        {
            "attempt_uid": [f"a{i:03d}" for i in range(120)],
            "judge": "j",
            "condition": "blind",
            "p_accept": np.clip(0.6 * y + 0.4 * rng.random(120), 0, 1),
            "y": y,
            "participant": participants,
            "problem_id": problems,
        }
    )
    judge_metrics = pl.DataFrame(
        {"judge": ["j", "j"], "condition": ["blind"] * 2, "metric": ["threshold_oof_median", "roc_auc"], "value": 0.5}
    )
    frame = estimation_frame(predictions, judge_metrics)
    table = estimate_pass_rates(frame, EstimationConfig(budgets=(25, 200), repetitions=50, bootstrap=50))
    assert sorted(set(table["n"])) == [25, 60]  # 200 capped at the 60 trajectories
    mine = table.filter((pl.col("participant") == "p3") & (pl.col("method") == "labels") & (pl.col("n") == 25))
    assert mine["truth"][0] == pytest.approx(y[participants == "p3"].mean())
    assert set(table["participant"].drop_nulls()) == {f"p{i}" for i in range(6)}


def test_a_sample_that_knows_the_pass_rate_has_no_label_equivalent_and_attempt_grouping_draws_attempts():
    """ITSP's shape: every trajectory one accepted and one rejected attempt. Whole-trajectory samples give 0.5
    with zero width (no labels-saved figure); attempt grouping samples attempts and gives one."""
    rng = np.random.default_rng(4)
    size = 400
    y = np.tile([1, 0], size // 2)
    predictions = pl.DataFrame(
        {
            "attempt_uid": [f"a{i:04d}" for i in range(size)],
            "judge": "j",
            "condition": "blind",
            "p_accept": np.clip(0.3 + 0.4 * y + rng.normal(0, 0.2, size), 0, 1),
            "y": y,
            "participant": np.repeat([f"u{i:03d}" for i in range(size // 2)], 2),
            "problem_id": "q",
        }
    )
    judge_metrics = pl.DataFrame({"judge": ["j"], "condition": ["blind"], "metric": ["threshold_oof_median"]})
    judge_metrics = judge_metrics.with_columns(value=pl.lit(0.5))
    config = EstimationConfig(budgets=(50,), repetitions=100, bootstrap=100)
    by_trajectory = estimate_pass_rates(estimation_frame(predictions, judge_metrics), config)
    saved = labels_saved(by_trajectory)
    assert by_trajectory.filter(pl.col("method") == "labels")["width"][0] == pytest.approx(0.0, abs=1e-12)
    assert saved.filter(pl.col("method") == "ppi")["n_eff"].null_count() == 1
    assert not saved["at_k"].any()
    by_attempt = estimate_pass_rates(estimation_frame(predictions, judge_metrics, grouping="attempt"), config)
    labels = by_attempt.filter(pl.col("participant").is_null() & (pl.col("method") == "labels")).row(0, named=True)
    assert labels["labels"] == 50 and labels["width"] > 0.1
    assert labels_saved(by_attempt)["n_eff"].null_count() == 0
    with pytest.raises(ValueError, match="grouping"):
        estimation_frame(predictions, judge_metrics, grouping="problem")


def test_invalid_inputs_name_the_argument():
    y, p = synthetic_population(50)
    with pytest.raises(ValueError, match="y"):
        simulate_cell(np.full(50, 2.0), p, np.arange(50), threshold=0.5)
    with pytest.raises(ValueError, match="p"):
        simulate_cell(y, p + 1, np.arange(50), threshold=0.5)
    with pytest.raises(ValueError, match="threshold"):
        simulate_cell(y, p, np.arange(50), threshold=1.5)
    with pytest.raises(ValueError, match="budgets"):
        EstimationConfig(budgets=(1,))
    with pytest.raises(ValueError, match="alpha"):
        EstimationConfig(alpha=1.5)
    with pytest.raises(ValueError, match="repetitions"):
        EstimationConfig(repetitions=0)
    with pytest.raises(ValueError, match="k"):
        labels_saved(pl.DataFrame(), k=1)
    with pytest.raises(ValueError, match="f_unlabelled"):
        ppi_mean_interval(y, p, [])
    with pytest.raises(ValueError, match="predictions"):
        estimation_frame(pl.DataFrame({"attempt_uid": ["a"]}), pl.DataFrame({"judge": ["j"]}))
    predictions = pl.DataFrame(
        {"attempt_uid": ["a"], "judge": "j", "condition": "blind", "p_accept": 0.5, "y": 1}
        | {"participant": "u", "problem_id": "q"}
    )
    with pytest.raises(ValueError, match="judge_metrics"):
        estimation_frame(predictions, pl.DataFrame({"judge": ["j"]}))
