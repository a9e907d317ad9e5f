"""Analytic intervals clustered by trajectory (core/stats/analytic.py) and their use in measurement."""

import numpy as np
import polars as pl
import pytest

from cojudge_assets.core.measurement import agreement, calibration
from cojudge_assets.core.measurement.measure import (
    ANALYTIC,
    BOOTSTRAP,
    INFLUENCES,
    INTERVAL_METRICS,
    SCALAR_METRICS,
    MeasurementConfig,
    measure,
)
from cojudge_assets.core.stats import analytic as an
from cojudge_assets.core.stats import metrics as m
from cojudge_assets.core.stats.bootstrap import cluster_weights


def scored(seed: int, n: int):
    rng = np.random.default_rng(seed)
    y = (rng.random(n) < 0.4).astype(np.int64)
    p = np.clip(np.round(0.3 + 0.3 * y + rng.normal(0, 0.2, n), 2), 0, 1)
    return y, p


def numeric_derivative(metric, n: int, eps: float = 1e-6) -> np.ndarray:
    """d metric / d w_i at weights 1, by central differences: the attempt's influence."""
    out = np.empty(n)
    for i in range(n):
        up, down = np.ones(n), np.ones(n)
        up[i] += eps
        down[i] -= eps
        out[i] = (metric(up) - metric(down)) / (2 * eps)
    return out


@pytest.mark.parametrize("name", ["roc_auc", "pr_auc", "brier", "log_loss", "mcc", "in_fold_mcc", "ece"])
def test_each_influence_is_the_derivative_of_the_weighted_metric(name):
    y, p = scored(1, 150)  # ties: p is on the 0.01 grid
    d = (p >= 0.5).astype(np.int64)
    influence, metric = {
        "roc_auc": (an.roc_auc_influence(y, p), lambda w: m.roc_auc(y, p, sample_weight=w)),
        "pr_auc": (an.average_precision_influence(y, p), lambda w: m.average_precision(y, p, sample_weight=w)),
        "brier": (an.mean_influence((p - y) ** 2), lambda w: m.brier(y, p, sample_weight=w)),
        "log_loss": (an.log_loss_influence(y, p), lambda w: m.log_loss(y, p, sample_weight=w)),
        "mcc": (an.mcc_influence(y, d), lambda w: m.mcc(y, d, sample_weight=w)),
        "in_fold_mcc": (an.in_fold_mcc_influence(y, p), lambda w: m.in_fold_mcc(y, p, sample_weight=w)),
        "ece": (an.ece_influence(y, p, 15), lambda w: calibration.ece(y, p, n_bins=15, sample_weight=w)),
    }[name]
    expected = numeric_derivative(metric, len(y))
    assert np.abs(expected).max() > 1e-4  # the metric moves with the weights
    np.testing.assert_allclose(influence, expected, atol=1e-7)


def rated(seed: int, n: int):
    """Three judges' scores on the 0.1 grid (ties), two of them related."""
    rng = np.random.default_rng(seed)
    a = np.round(rng.random(n), 1)
    return a, np.round(0.5 * a + 0.5 * rng.random(n), 1), np.round(0.3 * a + 0.5 * rng.random(n), 1)


@pytest.mark.parametrize("name", ["kappa", "fleiss_kappa", "spearman", "spearman_untied"])
def test_each_agreement_influence_is_the_derivative_of_the_weighted_statistic(name):
    a, b, c = rated(2, 120)
    if name == "spearman_untied":
        a, b = a + np.arange(120) * 1e-4, b + np.arange(120)[::-1] * 1e-4
    cuts = [agreement.median_cut(p) for p in (a, b, c)]
    ratings = np.column_stack(cuts)
    influence, statistic = {
        "kappa": (an.cohen_kappa_influence(cuts[0], cuts[1]), lambda w: agreement.cohen_kappa(*cuts[:2], w[None])),
        "fleiss_kappa": (an.fleiss_kappa_influence(ratings), lambda w: agreement.fleiss_kappa(ratings, w[None])),
        "spearman": (an.spearman_influence(a, b), lambda w: agreement.spearman(a, b, w[None])),
        "spearman_untied": (an.spearman_influence(a, b), lambda w: agreement.spearman(a, b, w[None])),
    }[name]
    expected = numeric_derivative(lambda w: float(statistic(w)[0]), len(a))
    assert np.abs(expected).max() > 1e-4  # the statistic moves with the weights
    np.testing.assert_allclose(influence, expected, atol=1e-8)


def test_a_constant_rater_has_no_spearman_influence():
    assert np.isnan(an.spearman_influence(np.ones(5), np.arange(5.0))).all()


@pytest.mark.slow  # importing statsmodels takes seconds on a loaded machine
def test_the_clustered_variance_of_a_mean_is_statsmodels_cluster_robust_one():
    import statsmodels.api as sm

    rng = np.random.default_rng(2)
    clusters = rng.integers(0, 40, 400)
    values = rng.normal(0, 1, 400) + rng.normal(0, 1, 40)[clusters]
    fit = sm.OLS(values, np.ones((400, 1))).fit(cov_type="cluster", cov_kwds={"groups": clusters})
    totals = an.cluster_totals(an.mean_influence(values), clusters, 40)
    assert an.clustered_variance(totals) == pytest.approx(float(fit.bse[0]) ** 2, rel=1e-9)


def clustered_sample(rng, trajectories: int, size: int = 3):
    """Trajectories of ``size`` attempts sharing a random effect on both the label and the score."""
    effect = np.repeat(rng.normal(0, 1.5, trajectories), size)
    y = (rng.random(trajectories * size) < 1 / (1 + np.exp(-(effect - 0.4)))).astype(np.int64)
    p = 1 / (1 + np.exp(-(1.2 * y - 0.6 + 2.5 * effect + rng.normal(0, 1, len(y)))))
    return y, p, np.repeat(np.arange(trajectories), size)


def test_the_clustered_auc_variance_matches_its_spread_over_simulated_studies():
    rng = np.random.default_rng(3)
    estimates, variances, naive = [], [], []
    for _ in range(200):
        y, p, clusters = clustered_sample(rng, 150)
        influence = an.roc_auc_influence(y, p)
        estimates.append(m.roc_auc(y, p))
        variances.append(an.clustered_variance(an.cluster_totals(influence, clusters, 150)))
        naive.append(an.clustered_variance(influence))  # every attempt its own cluster
    spread = np.var(estimates, ddof=1)
    # 200 studies: the sample variance is within about 20% of the truth
    assert np.mean(variances) == pytest.approx(spread, rel=0.25)
    # ignoring the trajectories understates it (seeded: 0.89 of the spread against 0.99 clustered)
    assert np.mean(naive) < 0.95 * np.mean(variances)


def agreement_and_influence(name: str, a: np.ndarray, b: np.ndarray) -> tuple[float, np.ndarray]:
    cuts = [agreement.median_cut(p) for p in (a, b)]
    if name == "kappa":
        return float(agreement.cohen_kappa(*cuts)), an.cohen_kappa_influence(*cuts)
    if name == "fleiss_kappa":
        return float(agreement.fleiss_kappa(np.column_stack(cuts))), an.fleiss_kappa_influence(np.column_stack(cuts))
    return float(agreement.spearman(a, b)), an.spearman_influence(a, b)


@pytest.mark.parametrize("name", ["kappa", "fleiss_kappa", "spearman"])
def test_the_clustered_agreement_variances_match_their_spread_over_simulated_studies(name):
    rng = np.random.default_rng(4)
    estimates, variances = [], []
    for _ in range(200):
        _, a, clusters = clustered_sample(rng, 150)
        b = np.round(1 / (1 + np.exp(-(np.log(a / (1 - a)) + rng.normal(0, 1.5, len(a))))), 2)  # a noisy second judge
        value, influence = agreement_and_influence(name, a, b)
        estimates.append(value)
        variances.append(an.clustered_variance(an.cluster_totals(influence, clusters, 150)))
    # 200 studies: the sample variance is within about 20% of the truth (the cuts move from study to study,
    # which the fixed-cut variance leaves out: the kappas' spread may exceed it a little)
    assert np.mean(variances) == pytest.approx(np.var(estimates, ddof=1), rel=0.25)


def predictions(seed: int, trajectories: int, judges=(("a", 0.9), ("b", 1.4)), thin: dict | None = None):
    rng = np.random.default_rng(seed)
    y, _, clusters = clustered_sample(rng, trajectories)
    n = len(y)
    frames = []
    for judge, noise in judges:
        for condition in ("blind", "nonblind"):
            p = np.clip(np.round(1 / (1 + np.exp(-(1.5 * y - 0.7 + rng.normal(0, noise, n)))), 2), 0, 1)
            keep = np.ones(n, dtype=bool)
            if thin and (judge, condition) in thin:
                keep[thin[(judge, condition)] :] = False
            frames.append(
                pl.DataFrame(
                    {
                        "attempt_uid": [f"u{i:06d}" for i in range(n)],
                        "judge": judge,
                        "condition": condition,
                        "p_accept": p,
                        "y": y,
                        "participant": [f"s{c // 7}" for c in clusters],
                        "problem_id": [f"p{c % 7}" for c in clusters],
                        "turn": np.arange(n) % 3,
                        "evidence": np.arange(n) % 4 > 0,
                        "code_sha256": [f"code {i}" for i in range(n)],
                    }
                ).filter(pl.Series(keep))
            )
    return pl.concat(frames)


def test_each_row_says_which_method_made_its_interval():
    table = predictions(4, 200)
    analytic = measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=0))
    boot = measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=10**9))
    metrics = analytic["judge_metrics"].filter(pl.col("metric") == "roc_auc")
    assert set(metrics["ci_method"]) == {ANALYTIC}
    # last: a judge_metrics table written before the column gains it at the end (defs/io.py), its columns in place
    assert analytic["judge_metrics"].columns[-3:] == ["lo_problem", "hi_problem", "ci_method"]
    assert set(boot["judge_metrics"].filter(pl.col("metric") == "roc_auc")["ci_method"]) == {BOOTSTRAP}
    # the point estimates do not depend on the method
    assert analytic["judge_metrics"]["value"].to_list() == boot["judge_metrics"]["value"].to_list()
    effects = analytic["condition_effects"]
    assert set(effects["ci_method"]) == {ANALYTIC}  # delta_roc_auc, rank_correlation, delta_fleiss_kappa
    assert set(effects["metric"]) >= {"delta_roc_auc", "rank_correlation", "delta_fleiss_kappa"}
    panel = analytic["panel"].filter(pl.col("metric").is_in(["roc_auc", "gain_over_mean_member"]))
    assert set(panel["ci_method"]) == {ANALYTIC}
    agreed = analytic["agreement"].drop_nulls("lo")
    assert set(agreed["metric"]) >= {"pairwise_kappa", "pairwise_rho", "fleiss_kappa", "rho_minus_kappa"}
    assert set(agreed["ci_method"]) == {ANALYTIC}
    assert set(boot["agreement"].drop_nulls("lo")["ci_method"]) == {BOOTSTRAP}
    assert analytic["agreement"]["value"].to_list() == boot["agreement"]["value"].to_list()
    # every judge_metrics interval is analytic; the in-fold MCC and its drop to out-of-fold have none under either
    # method (optimistic by construction: ScalarMetric.interval, docs/methodology.md)
    scalar = analytic["judge_metrics"].filter(pl.col("metric").is_in(list(INTERVAL_METRICS)))
    assert set(scalar["ci_method"]) == {ANALYTIC}
    for run in (analytic, boot):
        no_interval = pl.concat(
            [
                run["judge_metrics"].filter(pl.col("metric") == "mcc_in_fold").select("value", "lo", "hi", "ci_method"),
                run["scale_validity"]
                .filter(pl.col("metric") == "mcc_drop_in_fold_to_oof")
                .select("value", "lo", "hi", "ci_method"),
            ]
        )
        assert len(no_interval) == 2 * len(run["judge_metrics"].filter(pl.col("metric") == "roc_auc"))
        assert no_interval["value"].is_not_nan().all()
        assert no_interval["lo"].is_nan().all() and no_interval["hi"].is_nan().all()
        assert no_interval["ci_method"].is_null().all()
    assert set(INFLUENCES) == set(INTERVAL_METRICS) == set(SCALAR_METRICS) - {"mcc_in_fold"}
    coverage = analytic["judge_metrics"].filter(pl.col("metric") == "coverage")
    assert coverage["ci_method"].is_null().all()
    ok = metrics.filter(pl.col("lo").is_not_null())
    assert ((ok["lo"] <= ok["value"]) & (ok["value"] <= ok["hi"])).all()


def test_a_small_cell_keeps_the_bootstrap_and_its_comparisons_with_it():
    table = predictions(5, 200, thin={("b", "nonblind"): 300})  # 600 attempts; b under nonblind answered 300
    tables = measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=500))
    auc = tables["judge_metrics"].filter(pl.col("metric") == "roc_auc")
    methods = {(r["judge"], r["condition"]): r["ci_method"] for r in auc.iter_rows(named=True)}
    assert methods == {
        ("a", "blind"): ANALYTIC,
        ("a", "nonblind"): ANALYTIC,
        ("b", "blind"): ANALYTIC,
        ("b", "nonblind"): BOOTSTRAP,
    }
    delta = tables["condition_effects"].filter(pl.col("metric") == "delta_roc_auc")
    by_judge = {r["judge"]: r for r in delta.iter_rows(named=True)}
    assert by_judge["a"]["ci_method"] == ANALYTIC and by_judge["b"]["ci_method"] == BOOTSTRAP
    assert np.isfinite(by_judge["b"]["lo"]) and by_judge["b"]["lo"] < by_judge["b"]["hi"]
    panel = tables["panel"].filter(pl.col("condition") == "nonblind", pl.col("metric") == "gain_over_mean_member")
    assert panel["ci_method"].to_list() == [BOOTSTRAP] and np.isfinite(panel["lo"][0])
    # agreement: analytic on at least analytic_from attempts (blind: 600), bootstrapped on fewer (nonblind: 300)
    agreed = tables["agreement"].drop_nulls("lo")
    methods = {(r["condition"], r["metric"]): r["ci_method"] for r in agreed.iter_rows(named=True)}
    assert {m for (c, _), m in methods.items() if c == "blind"} == {ANALYTIC}
    assert {m for (c, _), m in methods.items() if c == "nonblind"} == {BOOTSTRAP}
    # their change between conditions is paired: bootstrapped, as one side is (blind is resampled too)
    fleiss = tables["condition_effects"].filter(pl.col("metric") == "delta_fleiss_kappa")
    assert fleiss["ci_method"].to_list() == [BOOTSTRAP] and fleiss["lo"][0] < fleiss["hi"][0]
    rank = tables["condition_effects"].filter(pl.col("metric") == "rank_correlation")
    assert {r["judge"]: r["ci_method"] for r in rank.iter_rows(named=True)} == {"a": ANALYTIC, "b": BOOTSTRAP}


@pytest.mark.slow  # 2,000 resamples of 4 cells of 2,100 attempts
def test_analytic_and_bootstrap_intervals_agree_within_a_tenth_of_their_width():
    table = predictions(6, 700)  # 2,100 attempts in 700 trajectories
    # the project's 2,000 resamples: a percentile interval's width varies by a few % from one seed to the next
    analytic = measure(table, MeasurementConfig(resamples=2000, problem_resamples=10, analytic_from=0))
    boot = measure(table, MeasurementConfig(resamples=2000, problem_resamples=10, analytic_from=10**9))
    wanted = ["roc_auc", "pr_auc", "brier", "log_loss", "base_rate", "mean_p", "mcc_oof"]
    a = analytic["judge_metrics"].filter(pl.col("metric").is_in(wanted))
    b = boot["judge_metrics"].filter(pl.col("metric").is_in(wanted))
    ratio = ((a["hi"] - a["lo"]) / (b["hi"] - b["lo"])).to_numpy()
    assert np.all(np.abs(ratio - 1) < 0.10), dict(zip(a["metric"], ratio.round(3)))
    # the agreement figures and the rank correlations between conditions (analytic since the influences of kappa,
    # Fleiss' kappa and rho); the two judges here are independent given the label, so they agree weakly
    for name in ("agreement", "condition_effects"):
        keys = ["judge", "condition", "metric"]
        a = analytic[name].drop_nulls("lo")
        both = a.join(boot[name].drop_nulls("lo"), on=keys, suffix="_boot")
        assert len(both) == len(a) >= 5
        ratio = ((both["hi"] - both["lo"]) / (both["hi_boot"] - both["lo_boot"])).to_numpy()
        assert np.all(np.abs(ratio - 1) < 0.10), dict(zip(both["metric"], ratio.round(3)))


def test_a_judge_that_answers_alike_under_two_conditions_has_a_point_interval_for_the_change():
    table = predictions(7, 200)
    blind = table.filter(pl.col("judge") == "a", pl.col("condition") == "blind")
    same = pl.concat([table.filter(pl.col("judge") != "a"), blind, blind.with_columns(condition=pl.lit("nonblind"))])
    tables = measure(same, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=0))
    delta = tables["condition_effects"].filter(pl.col("judge") == "a", pl.col("metric") == "delta_roc_auc")
    # every attempt's influence cancels: variance 0, as every bootstrap replicate of the change is 0 (was nan)
    assert delta.select("value", "lo", "hi", "ci_method").row(0) == (0.0, 0.0, 0.0, ANALYTIC)


def test_no_resample_is_drawn_when_every_interval_is_analytic(monkeypatch):
    import cojudge_assets.core.measurement.measure as measurement

    drawn = []

    def counting(clusters, n_resamples, seed, **kwargs):
        drawn.append(n_resamples)
        return cluster_weights(clusters, n_resamples, seed, **kwargs)

    monkeypatch.setattr(measurement, "cluster_weights", counting)
    table = predictions(8, 200)
    tables = measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=0))
    assert drawn == [0, 0]  # the trajectory and the problem resamples: none needed
    assert not tables["agreement"].drop_nulls("lo").is_empty()
    measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=10**9))
    assert drawn[2:] == [60, 30]


@pytest.mark.parametrize("metric", ["kendall_tau_b", "spearman", "pearson"])
@pytest.mark.parametrize("tied", [True, False], ids=["tied", "untied"])
def test_each_correlation_influence_is_the_derivative_of_the_weighted_statistic(metric, tied):
    """The correlation table's corpus level (core/measurement/correlation.py) computes each statistic on a
    multiset; with every item its own cluster drawn w_i times it is the weighted statistic, whose derivative in
    w_i at 1 is the item's influence."""
    from cojudge_assets.core.measurement.correlation import METRICS, _resampled

    y, p = scored(3, 140)
    if not tied:
        p = p + np.arange(140) * 1e-5
    influence = {
        "kendall_tau_b": an.kendall_tau_b_influence,
        "spearman": an.spearman_influence,
        "pearson": an.pearson_influence,
    }[metric](y, p)
    j = METRICS.index(metric)
    items = np.arange(len(y))
    expected = numeric_derivative(lambda w: float(_resampled(y, p, items, w[None])[0, j]), len(y))
    assert np.abs(expected).max() > 1e-4
    np.testing.assert_allclose(influence, expected, atol=1e-7)


def test_the_correlation_table_is_analytic_from_its_setting_and_near_the_bootstrap():
    """From analytic_from items the corpus rows' intervals are analytic (ci_method), with the values unchanged, and
    within 15% of the trajectory bootstrap's width on 3,000 clustered items; the example rows stay bootstrap."""
    from cojudge_assets.core.measurement.correlation import correlation_table

    rng = np.random.default_rng(11)
    clusters = np.repeat(np.arange(600), 5)
    quality = rng.normal(size=600)[clusters] + rng.normal(size=3000)
    y = (quality + rng.normal(size=3000) > 0).astype(np.int64)
    p = 1 / (1 + np.exp(-(quality + rng.normal(0, 1.5, 3000))))
    problems = clusters % 40
    boot = correlation_table(y, p, clusters, problems=problems, resamples=1000, seed=2)
    fast = correlation_table(y, p, clusters, problems=problems, resamples=1000, seed=2, analytic_from=3000)
    assert correlation_table(y, p, clusters, problems=problems, resamples=10, analytic_from=3001)[0]["ci_method"] == (
        "bootstrap"
    )
    for b, a in zip(boot, fast):
        assert a["metric"] == b["metric"] and a["value"] == b["value"]
        if a["metric"].endswith("_corpus"):
            assert a["ci_method"] == "analytic" and b["ci_method"] == "bootstrap"
            assert a["lo"] < a["value"] < a["hi"]
            ratio = (a["hi"] - a["lo"]) / (b["hi"] - b["lo"])
            assert 0.85 < ratio < 1.15, (a, b)
        else:  # the same resampling of the problems' values (drawn later in the stream: not the same draws)
            assert a["ci_method"] == b["ci_method"] == "bootstrap" and a["lo"] < a["value"] < a["hi"]


def test_the_evidence_figures_are_analytic_only_on_enough_attempts_with_evidence():
    # 600 attempts a cell, 450 of them with evidence: from analytic_from 500 the cells are analytic but their ROC-AUC
    # on the attempts with evidence is computed on 450, so it is resampled (its change between conditions and the
    # panel's too), as a bootstrap of everything resamples it; from 400 it is analytic as well
    table = predictions(5, 200)
    config = {"resamples": 60, "problem_resamples": 30}
    mixed = measure(table, MeasurementConfig(**config, analytic_from=500))
    boot = measure(table, MeasurementConfig(**config, analytic_from=10**9))
    low = measure(table, MeasurementConfig(**config, analytic_from=400))
    assert set(mixed["judge_metrics"].filter(pl.col("metric") == "roc_auc")["ci_method"]) == {ANALYTIC}

    def evidence_rows(tables: dict) -> pl.DataFrame:
        effects = tables["condition_effects"].filter(pl.col("metric") == "delta_roc_auc_evidence")
        panel = tables["panel"].filter(pl.col("metric") == "roc_auc_evidence")
        columns = ["judge", "condition", "metric", "value", "lo", "hi", "ci_method"]
        return pl.concat([effects.select(columns), panel.select(columns)])

    assert len(evidence_rows(mixed)) == 2 + 2  # each judge's change, each condition's panel
    assert set(evidence_rows(mixed)["ci_method"]) == {BOOTSTRAP}
    assert evidence_rows(mixed).equals(evidence_rows(boot))  # the very replicates of a bootstrap of everything
    assert set(evidence_rows(low)["ci_method"]) == {ANALYTIC}
    panel = mixed["panel"].filter(pl.col("metric") == "roc_auc")
    assert set(panel["ci_method"]) == {ANALYTIC}


def test_no_attempt_with_evidence_draws_no_resample(monkeypatch):
    # every cell analytic and no attempt with evidence (the scale rehearsal's generated corpus): the evidence figures
    # are undefined under either method, so nothing is resampled for them
    from cojudge_assets.core.measurement import measure as measure_module

    def no_draw(clusters, n_resamples, *args, **kwargs):
        if n_resamples:
            raise AssertionError("a resample of the attempts was drawn")
        return iter(())

    monkeypatch.setattr(measure_module, "cluster_weights", no_draw)
    table = predictions(5, 200).with_columns(pl.lit(False).alias("evidence"))
    tables = measure(table, MeasurementConfig(resamples=60, problem_resamples=30, analytic_from=0))
    evidence = tables["condition_effects"].filter(pl.col("metric") == "delta_roc_auc_evidence")
    assert len(evidence) == 2 and evidence["value"].is_nan().all()
