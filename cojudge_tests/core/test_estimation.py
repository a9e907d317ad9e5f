"""Pass rates from few labels (core/design/estimation.py): PPI++ against ppi_python and statsmodels, coverage on
synthetic data with a known truth (few groups, correlated attempts, the finite-population correction), labels
needed for equal precision against an independent recomputation, and input errors."""

import numpy as np
import polars as pl
import pytest
import statsmodels.api as sm
from scipy import stats

from cojudge_assets.core.design.estimation import (
    EVERY_GROUP,
    EstimationConfig,
    estimate_pass_rates,
    estimation_frame,
    groups_needed,
    labels_saved,
    ppi_mean_interval,
    selections,
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


def test_the_finite_population_ppi_is_the_regression_estimator_with_a_cluster_robust_t_interval():
    """finite=True: ppi_python's point estimate, and the interval of the regression estimator ybar - c (fbar_l -
    fbar) computed by statsmodels (OLS of the residual y - c f on a constant, clustered, t on g - 1 df), with the
    slope counted ((g-1)/(g-2)) and the finite-population correction."""
    ppi_py = pytest.importorskip("ppi_py")
    rng = np.random.default_rng(8)
    groups = np.repeat(np.arange(40), 3)
    effect = rng.normal(0, 1, 40)[groups]
    y = (rng.random(120) < 1 / (1 + np.exp(-effect))).astype(float)
    f = np.clip(0.4 * y + 0.3 + 0.1 * effect + rng.normal(0, 0.1, 120), 0, 1)
    f_u = np.clip(0.5 + 0.15 * rng.normal(0, 1, 360), 0, 1)
    groups_u = np.repeat(np.arange(120), 3)
    est, lo, hi = ppi_mean_interval(y, f, f_u, groups=groups, groups_unlabelled=groups_u, finite=True)
    # the point estimate does not depend on the interval: ungrouped it is ppi_python's
    plain = ppi_mean_interval(y, f, f_u, finite=True)[0]
    assert plain == pytest.approx(float(np.squeeze(ppi_py.ppi_mean_pointestimate(y, f, f_u, lam=None))), abs=1e-12)
    # independent: lam from group sums as the module docstring states, then statsmodels for the interval
    n, n_u = len(y), len(f_u)
    codes = groups
    sums = {k: np.bincount(codes, weights=v) for k, v in (("m", np.ones(n)), ("y", y), ("f", f))}
    ybar, fbar = y.mean(), f.mean()
    cov = np.sum((sums["y"] - ybar * sums["m"]) * (sums["f"] - fbar * sums["m"])) / n
    f_all = np.concatenate([f, f_u])
    group_all = np.concatenate([groups, 1000 + groups_u])
    tot_m, tot_f = np.bincount(group_all), np.bincount(group_all, weights=f_all)
    tot_m, tot_f = tot_m[tot_m > 0], tot_f[np.bincount(group_all) > 0]
    var_all = np.sum((tot_f - f_all.mean() * tot_m) ** 2) / (n + n_u - 1)
    lam = np.clip(cov / ((1 + n / n_u) * var_all), 0, 1)
    c = lam * (n + n_u) / n_u
    assert est == pytest.approx(ybar - c * (fbar - f_all.mean()), abs=1e-12)
    fit = sm.OLS(y - c * f, np.ones(n)).fit(cov_type="cluster", cov_kwds={"groups": groups}, use_t=True)
    g, big_g = 40, 160
    se = float(fit.bse[0]) * np.sqrt((g - 1) / (g - 2) * (1 - g / big_g))
    half = stats.t.ppf(0.975, g - 1) * se
    assert fit.df_resid_inference == g - 1
    assert (lo, hi) == pytest.approx((est - half, est + half), abs=1e-12)


def correlated_population(n_groups: int, *, size: int = 4, seed: int = 0):
    """Groups of ``size`` attempts sharing a normal effect on both the label and the judge's p."""
    rng = np.random.default_rng(seed)
    groups = np.repeat(np.arange(n_groups), size)
    effect = rng.normal(0, 1.0, n_groups)[groups]
    y = (rng.random(len(groups)) < 1 / (1 + np.exp(-(effect - 0.5)))).astype(float)
    p = np.clip(0.35 * y + 0.3 + 0.1 * effect + rng.normal(0, 0.15, len(groups)), 0, 1)
    return y, p, groups


def test_few_groups_ppi_covers_at_25_groups_and_no_interval_at_5():
    """25 labelled trajectories of 4 correlated attempts (populations of 1,000 trajectories), 8 populations x
    2,000 repetitions: PPI++'s pooled coverage is within two Monte Carlo standard errors of 0.95; ppi_python's z
    interval with CR0 is not (measured 0.936). With 5 labelled trajectories no interval is given."""
    shown = {"ppi": [], "ppi_z_cr0": [], "labels": []}
    for seed in range(8):
        y, p, groups = correlated_population(1000, seed=seed)
        config = EstimationConfig(budgets=(5, 25), repetitions=2000, bootstrap=10, seed=seed, variants=True)
        table = simulate_cell(y, p, groups, config=config)
        few = table.filter(pl.col("n") == 5)
        assert (
            few["reps"].sum() == 0
            and few["coverage"].null_count() == len(few)
            and few["width"].null_count() == len(few)
        )
        assert set(few.filter(pl.col("method") == "ppi")["note"]) == {"fewer than 10 groups labelled: no interval"}
        at25 = table.filter(pl.col("n") == 25)
        for method in shown:
            row = at25.filter(pl.col("method") == method).row(0, named=True)
            assert row["reps"] == 2000 and row["coverage_se"] == pytest.approx(
                np.sqrt(row["coverage"] * (1 - row["coverage"]) / 2000)
            )
            shown[method].append(row["coverage"])
    mc_error = 2 * np.sqrt(0.95 * 0.05 / (8 * 2000))
    assert abs(np.mean(shown["ppi"]) - 0.95) <= mc_error, shown["ppi"]
    assert abs(np.mean(shown["labels"]) - 0.95) <= mc_error, shown["labels"]
    assert np.mean(shown["ppi_z_cr0"]) < 0.95 - mc_error


def test_intervals_cover_the_known_truth_at_their_nominal_level():
    """1,000 repetitions of 150 labels out of 5,000 (iid attempts): labels alone and PPI++ within two Monte Carlo
    standard errors of 95%; Rogan-Gladen is reported, with its threshold chosen on the labelled sample and held
    in the bootstrap, and covers less; the judge alone has no interval."""
    y, p = synthetic_population(5000)
    config = EstimationConfig(budgets=(150,), repetitions=1000, bootstrap=200, seed=11)
    table = simulate_cell(y, p, np.arange(len(y)), config=config)
    rows = {r["method"]: r for r in table.iter_rows(named=True)}
    for method in ("ppi", "labels"):
        assert abs(rows[method]["coverage"] - 0.95) <= 2 * rows[method]["coverage_se"] + 0.005, rows[method]
        assert rows[method]["reps"] == 1000
    assert rows["judge"]["coverage"] is None and rows["judge"]["note"].startswith("no interval")
    assert rows["rogan_gladen"]["reps"] + rows["rogan_gladen"]["undefined"] == 1000
    assert rows["ppi"]["truth"] == pytest.approx(y.mean())
    assert abs(rows["ppi"]["bias"]) < 0.005
    assert rows["ppi"]["width"] < rows["labels"]["width"]  # an informative judge narrows the interval
    assert rows["ppi"]["rmse"] ** 2 == pytest.approx(rows["ppi"]["sd"] ** 2 + rows["ppi"]["bias"] ** 2)


def test_the_finite_population_correction_keeps_coverage_at_large_budgets_and_every_group_labelled_is_no_row():
    """100 of 160 trajectories: without the correction the intervals would cover almost always; with it labels
    alone and PPI++ are near 95%. A budget of 200 reaches every trajectory: one row, no coverage."""
    y, p, groups = correlated_population(160, seed=3)
    config = EstimationConfig(budgets=(100, 200), repetitions=1000, bootstrap=50, seed=5)
    table = simulate_cell(y, p, groups, config=config)
    at100 = {r["method"]: r for r in table.filter(pl.col("n") == 100).iter_rows(named=True)}
    for method in ("labels", "ppi"):
        assert abs(at100[method]["coverage"] - 0.95) < 0.025, at100[method]
    every = table.filter(pl.col("n") >= 160)
    assert len(every) == 1 and every["n"][0] == 160 and every["note"][0] == EVERY_GROUP
    assert every["coverage"][0] is None and every["estimate"][0] == pytest.approx(y.mean())
    assert table.filter(pl.col("coverage").is_not_null())["n"].max() < 160


def test_undefined_repetitions_and_bootstrap_replicates_are_counted():
    """A rare class: some labelled samples hold no accepted attempt (Rogan-Gladen and the threshold undefined),
    and some bootstrap replicates drop the few accepted ones."""
    rng = np.random.default_rng(6)
    y = (rng.random(2000) < 0.03).astype(float)
    p = np.clip(0.2 + 0.5 * y + rng.normal(0, 0.15, 2000), 0, 1)
    table = simulate_cell(y, p, np.arange(2000), config=EstimationConfig(budgets=(40,), repetitions=400, seed=2))
    rows = {r["method"]: r for r in table.iter_rows(named=True)}
    rg = rows["rogan_gladen"]
    assert rg["undefined"] > 0 and rg["reps"] + rg["undefined"] == 400
    assert 0 < rg["boot_undefined"] < 1
    assert rows["judge"]["undefined"] <= rg["undefined"]  # Rogan-Gladen is also undefined where sens + spec <= 1
    # no accepted label: the threshold is undefined in exactly the samples whose labels are all rejected
    in_order = y[sorted(range(2000), key=str)]  # the draws are over the groups in sorted (string) order
    none_accepted = sum(
        in_order[np.flatnonzero(row)].sum() == 0 for row in selections(2000, 40, repetitions=400, seed=2)
    )
    assert rows["judge"]["undefined"] == none_accepted


def recompute_labels_saved(frame: pl.DataFrame, config: EstimationConfig) -> pl.DataFrame:
    """PPI++'s labels saved, recomputed repetition by repetition from the same draws (:func:`selections` over
    the cell's groups in sorted order), with code of its own: labels alone's and PPI++'s estimates, their mean
    squared error about the full-label pass rate, and the groups PPI++ needs for labels alone's MSE at n when
    both scale as 1/g - 1/G."""
    out = []
    for (judge, condition), cell in frame.group_by("judge", "condition"):
        per_group = (
            cell.group_by("group")
            .agg(pl.len().alias("m"), pl.col("y").sum().alias("y"), pl.col("p").sum().alias("f"))
            .sort("group")
        )
        m, yg, fg = (per_group[c].to_numpy().astype(float) for c in ("m", "y", "f"))
        big_g, total, truth, fbar = len(m), m.sum(), yg.sum() / m.sum(), fg.sum() / m.sum()
        var_all = np.sum((fg - fbar * m) ** 2) / (total - 1)
        for budget in config.budgets:
            if budget >= big_g:
                continue
            draws = selections(big_g, budget, repetitions=config.repetitions, seed=config.seed)
            labels, ppi = [], []
            for row in draws:
                i = np.flatnonzero(row)
                n = m[i].sum()
                ybar, fl = yg[i].sum() / n, fg[i].sum() / n
                fu = (fg.sum() - fg[i].sum()) / (total - n)
                cov = np.sum((yg[i] - ybar * m[i]) * (fg[i] - fl * m[i])) / n
                # a judge with one p for every attempt has no variance: lam = 0, the labels alone
                lam = np.clip(cov / ((1 + n / (total - n)) * var_all), 0, 1) if var_all > 0 else 0.0
                labels.append(ybar)
                ppi.append(lam * fu + ybar - lam * fl)
            mse_labels = np.mean((np.array(labels) - truth) ** 2)
            mse_ppi = np.mean((np.array(ppi) - truth) ** 2)
            exact = mse_labels == 0 or mse_ppi == 0  # no label-equivalent (the asset shows none)
            needed = np.nan if exact else 1 / ((1 / budget - 1 / big_g) * mse_labels / mse_ppi + 1 / big_g)
            out.append(
                {"judge": judge, "condition": condition, "n": budget, "recomputed": budget - needed}
                | {"mse_labels": mse_labels, "mse_ppi": mse_ppi}
            )
    return pl.DataFrame(out)


def compare_with_recomputation(
    frame: pl.DataFrame,
    config: EstimationConfig,
    *,
    estimation: pl.DataFrame | None = None,
    saved: pl.DataFrame | None = None,
):
    """Every PPI++ labels_saved shown matches the recomputation within 5% (of its size, or 0.05 groups near 0),
    and so does the spread (MSE) of labels alone and PPI++ at every budget, shown or not; returns the rows
    compared."""
    estimation = estimation if estimation is not None else estimate_pass_rates(frame, config)
    saved = saved if saved is not None else labels_saved(estimation)
    recomputed = recompute_labels_saved(frame, config)
    overall = estimation.filter(pl.col("participant").is_null() & pl.col("note").is_null())
    for method, column in (("labels", "mse_labels"), ("ppi", "mse_ppi")):
        mine = overall.filter(pl.col("method") == method).select("judge", "condition", "n", "rmse")
        both = mine.join(recomputed, on=["judge", "condition", "n"], how="inner")
        assert len(both) == len(recomputed) > 0
        for row in both.iter_rows(named=True):
            assert row["rmse"] ** 2 == pytest.approx(row[column], rel=0.05, abs=1e-12), (method, row)
    shown = saved.filter((pl.col("method") == "ppi") & pl.col("labels_saved").is_not_null())
    joined = shown.join(recomputed, on=["judge", "condition", "n"], how="inner")
    assert len(joined) == len(shown)
    for row in joined.iter_rows(named=True):
        assert row["labels_saved"] == pytest.approx(row["recomputed"], rel=0.05, abs=0.05), row
    return joined


@pytest.mark.slow
def test_labels_saved_on_the_demo_study_matches_the_recomputation(demo_study):
    """The demo study's stored estimation and labels_saved tables against the recomputation from its predictions
    (the pipeline's settings)."""
    import duckdb

    with duckdb.connect(str(demo_study.db), read_only=True) as conn:
        predictions = conn.execute("select * from main.predictions").pl()
        estimation = conn.execute("select * from main.estimation").pl()
        saved = conn.execute("select * from main.labels_saved").pl()
    # no coverage row at or beyond every group; every coverage with its Monte Carlo SE; no per-participant
    # interval below 10 labelled groups
    assert (
        estimation.filter(pl.col("coverage").is_not_null())["n"]
        < estimation["groups_total"].filter(estimation["coverage"].is_not_null())
    ).all()
    assert estimation.filter(pl.col("coverage").is_not_null())["coverage_se"].null_count() == 0
    assert estimation.filter(pl.col("participant").is_not_null() & (pl.col("groups") < 10))[
        "coverage"
    ].null_count() == len(estimation.filter(pl.col("participant").is_not_null() & (pl.col("groups") < 10)))
    compare_with_recomputation(estimation_frame(predictions), EstimationConfig(), estimation=estimation, saved=saved)


def test_labels_saved_matches_an_independent_recomputation_from_the_estimates_spread():
    y, p, groups = correlated_population(300, seed=9)
    predictions = pl.DataFrame(
        {
            "attempt_uid": [f"a{i:05d}" for i in range(len(y))],
            "judge": "j",
            "condition": "blind",
            "p_accept": p,
            "y": y.astype(int),
            "participant": [f"u{g:04d}" for g in groups],
            "problem_id": "q",
        }
    )
    config = EstimationConfig(budgets=(25, 50, 100), repetitions=300, bootstrap=20)
    joined = compare_with_recomputation(estimation_frame(predictions), config)
    assert len(joined) >= 2 and (joined["labels_saved"] > 0).all()  # an informative judge saves labels


def test_labels_needed_for_equal_precision():
    def row(method, n, rmse, coverage=0.95, reps=1000):
        return {"method": method, "n": n, "rmse": rmse, "coverage": coverage, "reps": reps}

    rows = [
        row("labels", 50, 0.05),
        row("ppi", 50, 0.04),
        row("rogan_gladen", 50, 0.03, coverage=0.90),
        row("labels", 100, 0.03),
        row("ppi", 100, 0.0),
    ]
    estimation = pl.DataFrame(rows).with_columns(
        judge=pl.lit("j"),
        condition=pl.lit("blind"),
        participant=pl.lit(None, dtype=pl.String),
        groups_total=pl.lit(160),
        labels=pl.col("n") * 3.0,
        estimate=pl.lit(0.3),
        coverage_se=(pl.col("coverage") * (1 - pl.col("coverage")) / pl.col("reps")).sqrt(),
        note=pl.lit(None, dtype=pl.String),
    )
    table = labels_saved(estimation)
    ppi50 = table.filter((pl.col("method") == "ppi") & (pl.col("n") == 50)).row(0, named=True)
    # MSE at g groups of 160 is (1/g - 1/160) V: PPI++ reaches labels alone's 0.05^2 with g groups
    v_ppi = 0.04**2 / (1 / 50 - 1 / 160)
    g = 1 / (0.05**2 / v_ppi + 1 / 160)
    assert ppi50["groups_needed"] == pytest.approx(g) and g < 50
    assert ppi50["labels_saved"] == pytest.approx(50 - g)
    assert ppi50["attempts_needed"] == pytest.approx(3 * g) and ppi50["attempts_saved"] == pytest.approx(150 - 3 * g)
    assert groups_needed(50, 10**12, 0.05**2, 0.04**2) == pytest.approx(50 * 0.04**2 / 0.05**2)
    rg = table.filter(pl.col("method") == "rogan_gladen").row(0, named=True)
    assert not rg["coverage_ok"] and rg["labels_saved"] is None and "not within Monte Carlo error" in rg["note"]
    exact = table.filter((pl.col("method") == "ppi") & (pl.col("n") == 100)).row(0, named=True)
    assert exact["labels_saved"] is None and "MSE of 0" in exact["note"]


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
    frame = estimation_frame(predictions)
    table = estimate_pass_rates(frame, EstimationConfig(budgets=(25, 200), repetitions=50, bootstrap=50))
    assert sorted(set(table["n"])) == [25, 60]  # 200 capped at the 60 trajectories: every group labelled
    assert table.filter(pl.col("n") == 60)["note"].to_list() == [EVERY_GROUP]
    mine = table.filter((pl.col("participant") == "p3") & (pl.col("method") == "labels") & (pl.col("n") == 25))
    assert mine["truth"][0] == pytest.approx(y[participants == "p3"].mean())
    assert set(table["participant"].drop_nulls()) == {f"p{i}" for i in range(6)}
    # 10 trajectories each, about 4 labelled: an estimate, never an interval; no per-participant Rogan-Gladen
    per = table.filter(pl.col("participant").is_not_null())
    assert per["coverage"].null_count() == len(per) and per["reps"].sum() == 0
    assert (per["groups"] < 10).all() and "rogan_gladen" not in set(per["method"])


def test_the_draws_and_the_participants_in_blocks_give_the_table_of_one_block(monkeypatch):
    # bounded memory (issue 33): the draws are made SELECTION_KEYS / G repetitions at a time and the participants
    # summarised STRATA_BLOCK at a time; blocks of 7 and 3 must give the table one block of each gives
    from cojudge_assets.core.design import estimation as est

    rng = np.random.default_rng(5)
    participants = np.repeat([f"p{i:02d}" for i in range(40)], 12)
    problems = np.tile(np.repeat([f"q{i}" for i in range(6)], 2), 40)
    y = rng.integers(0, 2, len(participants)).astype(float)
    p = np.clip(0.5 * y + 0.5 * rng.random(len(y)), 0, 1)
    groups = np.char.add(participants, problems)
    config = EstimationConfig(budgets=(30, 120), repetitions=40, bootstrap=20)
    whole = simulate_cell(y, p, groups, participants=participants, config=config)
    monkeypatch.setattr(est, "SELECTION_KEYS", 7 * 240)
    monkeypatch.setattr(est, "STRATA_BLOCK", 3)
    blocks = simulate_cell(y, p, groups, participants=participants, config=config)
    assert len(whole) == len(blocks) and whole["participant"].n_unique() == 41  # 40 participants and "all"
    assert whole.equals(blocks)
    in_blocks = selections(240, 30, repetitions=40, seed=9)
    monkeypatch.setattr(est, "SELECTION_KEYS", 1 << 20)
    assert np.array_equal(in_blocks, selections(240, 30, repetitions=40, seed=9))
    assert (in_blocks.sum(axis=1) == 30).all()


def test_a_sample_that_knows_the_pass_rate_has_no_label_equivalent_and_attempt_grouping_draws_attempts():
    """ITSP's shape: every trajectory one accepted and one rejected attempt. Whole-trajectory samples give 0.5
    with zero error (no labels-saved figure); attempt grouping samples attempts and gives one."""
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
    config = EstimationConfig(budgets=(50,), repetitions=100, bootstrap=100)
    by_trajectory = estimate_pass_rates(estimation_frame(predictions), config)
    saved = labels_saved(by_trajectory)
    labels = by_trajectory.filter(pl.col("participant").is_null() & (pl.col("method") == "labels")).row(0, named=True)
    assert labels["width"] == pytest.approx(0.0, abs=1e-12) and labels["rmse"] == pytest.approx(0.0, abs=1e-12)
    assert saved.filter(pl.col("method") == "ppi")["labels_saved"].null_count() == 1
    by_attempt = estimate_pass_rates(estimation_frame(predictions, grouping="attempt"), config)
    labels = by_attempt.filter(pl.col("participant").is_null() & (pl.col("method") == "labels")).row(0, named=True)
    assert labels["labels"] == 50 and labels["width"] > 0.1
    with pytest.raises(ValueError, match="grouping"):
        estimation_frame(predictions, grouping="problem")


def test_invalid_inputs_name_the_argument():
    y, p = synthetic_population(50)
    with pytest.raises(ValueError, match="y"):
        simulate_cell(np.full(50, 2.0), p, np.arange(50))
    with pytest.raises(ValueError, match="p"):
        simulate_cell(y, p + 1, np.arange(50))
    with pytest.raises(ValueError, match="budgets"):
        EstimationConfig(budgets=(1,))
    with pytest.raises(ValueError, match="alpha"):
        EstimationConfig(alpha=1.5)
    with pytest.raises(ValueError, match="repetitions"):
        EstimationConfig(repetitions=0)
    with pytest.raises(ValueError, match="min_groups"):
        EstimationConfig(min_groups=1)
    with pytest.raises(ValueError, match="alpha"):
        labels_saved(pl.DataFrame(), alpha=0)
    with pytest.raises(ValueError, match="f_unlabelled"):
        ppi_mean_interval(y, p, [])
    with pytest.raises(ValueError, match="predictions"):
        estimation_frame(pl.DataFrame({"attempt_uid": ["a"]}))
