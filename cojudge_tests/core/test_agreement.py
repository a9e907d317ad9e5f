"""Agreement statistics against scikit-learn, statsmodels and scipy, by hand, and under bootstrap weights."""

from __future__ import annotations

import doctest
import warnings

import numpy as np
import polars as pl
import pytest
from scipy.stats import spearmanr
from sklearn.metrics import cohen_kappa_score
from statsmodels.stats.inter_rater import aggregate_raters
from statsmodels.stats.inter_rater import fleiss_kappa as sm_fleiss_kappa

from cojudge_assets.core.dynamics import pooling
from cojudge_assets.core.measurement import agreement
from cojudge_assets.core.measurement.agreement import (
    cohen_kappa,
    fleiss_kappa,
    krippendorff_alpha,
    median_cut,
    pairwise_agreement,
    panel_agreement,
    percentile_ranks,
    spearman,
)
from cojudge_assets.core.measurement.measure import (
    MeasurementConfig,
    Universe,
    condition_panel,
    measure,
    panel_kappa_matrix,
)
from cojudge_tests.core.test_metrics import synthetic_predictions

JUDGES = ("judge-c", "judge-a", "judge-b", "judge-d")  # not in name order on purpose


def panel(seed: int, n: int = 60) -> dict[str, np.ndarray]:
    """Judges on a 0.1 grid (many ties, as LLM judges answer), related through a shared signal."""
    rng = np.random.default_rng(seed)
    signal = rng.random(n)
    return {name: np.round(np.clip(signal + rng.normal(0, 0.1 + 0.1 * k, n), 0, 1), 1) for k, name in enumerate(JUDGES)}


def binary_raters(seed: int, n: int = 200, raters: int = 2) -> np.ndarray:
    rng = np.random.default_rng(seed)
    truth = rng.random(n) < 0.4
    flips = rng.random((n, raters)) < rng.uniform(0.1, 0.4, raters)
    return (truth[:, None] ^ flips).astype(int)


def weight_rows(seed: int, n: int) -> np.ndarray:
    """Five integer weight rows with zeros: random, random, sparse, all zero (empty), one attempt only."""
    rng = np.random.default_rng(seed)
    w = rng.integers(0, 4, size=(5, n))
    w[2] *= rng.random(n) < 0.3
    w[3] = 0
    w[4] = 0
    w[4, 7] = 3
    return w.astype(float)


# -- against the reference implementations -----------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_cohen_kappa_equals_scikit_learn(seed):
    a, b = binary_raters(seed).T
    assert cohen_kappa(a, b) == pytest.approx(cohen_kappa_score(a, b), abs=1e-9)


@pytest.mark.parametrize("seed, raters", [(0, 2), (1, 3), (2, 4), (3, 7)])
def test_fleiss_kappa_equals_statsmodels(seed, raters):
    ratings = binary_raters(seed, raters=raters)
    table, _ = aggregate_raters(ratings, n_cat=2)
    assert fleiss_kappa(ratings) == pytest.approx(sm_fleiss_kappa(table, method="fleiss"), abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1, 2, 3])
def test_spearman_equals_scipy_with_ties(seed):
    scores = panel(seed, n=150)
    a, b = scores["judge-a"], scores["judge-d"]
    assert len(np.unique(a)) <= 11  # many ties
    assert spearman(a, b) == pytest.approx(spearmanr(a, b).statistic, abs=1e-9)


# -- by hand -----------------------------------------------------------------------------------------------


def test_cohen_kappa_by_hand():
    # n = 10; a has six 1s, b four; they agree on the first four (1, 1) and the last four (0, 0):
    # po = 8/10 = 0.8; pa = 0.6, pb = 0.4; pe = 0.6*0.4 + 0.4*0.6 = 0.48; kappa = 0.32 / 0.52 = 8/13
    a = np.array([1, 1, 1, 1, 1, 1, 0, 0, 0, 0])
    b = np.array([1, 1, 1, 1, 0, 0, 0, 0, 0, 0])
    assert cohen_kappa(a, b) == pytest.approx(8 / 13, abs=1e-12)


def test_fleiss_kappa_by_hand():
    # m = 3 raters, ones per subject 3, 2, 0, 1:
    # P_i = (n1^2 + n0^2 - 3) / 6 = (9+0-3)/6, (4+1-3)/6, (0+9-3)/6, (1+4-3)/6 = 1, 1/3, 1, 1/3; P_bar = 2/3
    # p_1 = (3+2+0+1)/12 = 1/2, P_e = 1/4 + 1/4 = 1/2; kappa = (2/3 - 1/2) / (1 - 1/2) = 1/3
    ratings = np.array([[1, 1, 1], [1, 1, 0], [0, 0, 0], [1, 0, 0]])
    assert fleiss_kappa(ratings) == pytest.approx(1 / 3, abs=1e-12)


def test_krippendorff_alpha_by_hand():
    # 2 runs x 4 units: (1,1) (2,2) (3,3) (4,5); n = 8 pairable values.
    # D_o: only unit 4 disagrees, its 2 ordered pairs give 2 * (5-4)^2 = 2, over m_u - 1 = 1; D_o = 2/8 = 1/4.
    # D_e: values 1,1,2,2,3,3,4,5 (mean 21/8) have sum of squared deviations 13.875, so the sum over
    # ordered pairs of (c - k)^2 is 2 * 8 * 13.875 = 222; D_e = 222 / (8 * 7) = 111/28.
    # alpha = 1 - (1/4) / (111/28) = 1 - 7/111 = 104/111
    runs = np.array([[1.0, 2.0, 3.0, 4.0], [1.0, 2.0, 3.0, 5.0]])
    assert krippendorff_alpha(runs) == pytest.approx(104 / 111, abs=1e-12)
    # a unit only one run answered is not pairable and changes nothing
    with_missing = np.array([[1.0, 2.0, 3.0, 4.0, np.nan], [1.0, 2.0, 3.0, 5.0, 9.0]])
    assert krippendorff_alpha(with_missing) == pytest.approx(104 / 111, abs=1e-12)


def test_krippendorff_alpha_perfect_and_undefined():
    perfect = np.array([[0.1, 0.9, 0.5, np.nan], [0.1, 0.9, 0.5, 0.7], [0.1, np.nan, 0.5, 0.7]])
    assert krippendorff_alpha(perfect) == 1.0
    assert np.isnan(krippendorff_alpha(np.array([[0.2, np.nan], [np.nan, 0.8]])))  # no unit pairable
    assert np.isnan(krippendorff_alpha(np.array([[0.5, 0.5], [0.5, 0.5]])))  # no variation to explain
    assert np.isnan(krippendorff_alpha(np.array([[0.1, 0.9, 0.5]])))  # one run


def test_percentile_ranks_and_median_cut_with_ties():
    # ranks 1, 2.5, 2.5, 4 (the two 0.5s share ranks 2 and 3), over n = 4
    assert percentile_ranks(np.array([0.2, 0.5, 0.5, 0.9])).tolist() == [0.25, 0.625, 0.625, 1.0]
    assert percentile_ranks(np.array([0.3, 0.3, 0.3])).tolist() == [2 / 3] * 3
    # the median 0.4 is tied: ties go to 1, as in yhat = [p >= t]
    assert median_cut(np.array([0.9, 0.4, 0.1, 0.4])).tolist() == [1, 1, 0, 1]


def test_docstring_examples():
    failures, tried = doctest.testmod(agreement)
    assert tried >= 6 and failures == 0
    failures, tried = doctest.testmod(pooling)
    assert tried >= 4 and failures == 0


# -- properties --------------------------------------------------------------------------------------------


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_properties(seed):
    scores = panel(seed)
    a, b = scores["judge-a"], scores["judge-c"]
    cut_a, cut_b = median_cut(a), median_cut(b)
    assert cohen_kappa(cut_a, cut_b) == pytest.approx(cohen_kappa(cut_b, cut_a), abs=1e-12)  # symmetric
    assert spearman(a, b) == pytest.approx(spearman(b, a), abs=1e-12)
    assert -1 <= cohen_kappa(cut_a, cut_b) <= 1 and -1 <= spearman(a, b) <= 1  # bounded
    assert cohen_kappa(cut_a, cut_a) == pytest.approx(1.0) and spearman(a, a) == pytest.approx(1.0)
    assert fleiss_kappa(np.column_stack([cut_a] * 3)) == pytest.approx(1.0)
    # ranks only: invariant under strictly increasing transforms, negated under decreasing ones
    assert spearman(a**3, np.exp(b)) == pytest.approx(spearman(a, b), abs=1e-12)
    assert spearman(-a, b) == pytest.approx(-spearman(a, b), abs=1e-12)


def test_constant_raters_give_nan_without_warnings():
    ones, mixed = np.ones(6, dtype=int), np.array([1, 0, 1, 0, 1, 1])
    w = np.random.default_rng(0).random((3, 6))  # fractional: nan must not hinge on integer arithmetic
    only_first = np.zeros((1, 6))
    only_first[0, 0] = 0.3
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert np.isnan(cohen_kappa(ones, ones))
        assert np.isnan(cohen_kappa(1 - ones, 1 - ones, w)).all()
        assert cohen_kappa(ones, mixed) == 0.0  # one constant rater: defined, no agreement beyond chance
        assert np.isnan(fleiss_kappa(np.column_stack([ones, ones, ones])))
        assert np.isnan(fleiss_kappa(np.column_stack([ones, ones, ones]), w)).all()
        assert np.isnan(spearman(np.full(6, 0.5), np.arange(6.0)))
        assert np.isnan(spearman(np.full(6, 0.5), np.arange(6.0), w)).all()
        assert np.isnan(spearman(np.arange(6.0) ** 2, np.arange(6.0), only_first)).all()
        assert np.isnan(cohen_kappa(mixed, mixed, only_first)).all()
        result = panel_agreement({"x": np.full(6, 0.7), "y": np.full(6, 0.7)})
        assert all(np.isnan(value) for value in result.values())


def test_invalid_input_is_rejected():
    with pytest.raises(ValueError, match="0 and 1"):
        cohen_kappa(np.array([0, 2]), np.array([0, 1]))
    with pytest.raises(ValueError, match="different shapes"):
        spearman(np.arange(3.0), np.arange(4.0))
    with pytest.raises(ValueError, match="shape"):
        spearman(np.arange(3.0), np.arange(3.0), np.ones((2, 4)))
    with pytest.raises(ValueError, match="nonnegative"):
        spearman(np.arange(3.0), np.arange(3.0), -np.ones((2, 3)))
    with pytest.raises(ValueError, match="different numbers"):
        pairwise_agreement({"a": np.arange(3.0), "b": np.arange(4.0)})
    with pytest.raises(ValueError, match="at least 2 judges"):
        panel_agreement({"a": np.arange(3.0)})


# -- the panel ---------------------------------------------------------------------------------------------


def test_pairwise_and_panel_agreement():
    scores = panel(4)
    pairs = pairwise_agreement(scores)
    assert [(p["judge_a"], p["judge_b"]) for p in pairs] == [
        ("judge-a", "judge-b"),
        ("judge-a", "judge-c"),
        ("judge-a", "judge-d"),
        ("judge-b", "judge-c"),
        ("judge-b", "judge-d"),
        ("judge-c", "judge-d"),
    ]
    for pair in pairs:
        a, b = scores[pair["judge_a"]], scores[pair["judge_b"]]
        assert pair["kappa"] == pytest.approx(cohen_kappa_score(median_cut(a), median_cut(b)), abs=1e-9)
        assert pair["rho"] == pytest.approx(spearmanr(a, b).statistic, abs=1e-9)
    result = panel_agreement(scores)
    table, _ = aggregate_raters(np.column_stack([median_cut(p) for p in scores.values()]), n_cat=2)
    assert result["fleiss_kappa"] == pytest.approx(sm_fleiss_kappa(table), abs=1e-9)
    assert result["mean_kappa"] == pytest.approx(np.mean([p["kappa"] for p in pairs]), abs=1e-12)
    assert result["mean_rho"] == pytest.approx(np.mean([p["rho"] for p in pairs]), abs=1e-12)
    assert result["rho_minus_kappa"] == pytest.approx(result["mean_rho"] - result["mean_kappa"], abs=1e-12)


# -- bootstrap weights: a weight row equals repeating the attempts ------------------------------------------


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_kappas_and_spearman_equal_repeated_rows(seed):
    scores = panel(seed, n=50)
    a, b = scores["judge-a"], scores["judge-b"]
    ratings = np.column_stack([median_cut(p) for p in scores.values()])
    w = weight_rows(seed, len(a))
    got_kappa = cohen_kappa(ratings[:, 0], ratings[:, 1], w)
    got_fleiss = fleiss_kappa(ratings, w)
    got_rho = spearman(a, b, w)
    assert got_kappa.shape == got_fleiss.shape == got_rho.shape == (5,)
    for row in range(len(w)):
        counts = w[row].astype(int)
        expected = (
            cohen_kappa(np.repeat(ratings[:, 0], counts), np.repeat(ratings[:, 1], counts)),
            fleiss_kappa(np.repeat(ratings, counts, axis=0)),
            spearman(np.repeat(a, counts), np.repeat(b, counts)),
        )
        np.testing.assert_allclose((got_kappa[row], got_fleiss[row], got_rho[row]), expected, rtol=0, atol=1e-9)
    assert np.isfinite(got_rho[:3]).all() and np.isnan(got_rho[3:]).all()  # empty and one-attempt resamples


def test_weighted_spearman_equals_scipy_on_repeated_rows():
    scores = panel(7, n=80)
    a, b = scores["judge-b"], scores["judge-d"]
    w = np.random.default_rng(7).integers(0, 5, size=(5, len(a))).astype(float)
    got = spearman(a, b, w)
    for row in range(len(w)):
        counts = w[row].astype(int)
        assert got[row] == pytest.approx(spearmanr(np.repeat(a, counts), np.repeat(b, counts)).statistic, abs=1e-9)


@pytest.mark.parametrize("seed", [0, 1])
def test_weighted_panel_keeps_the_full_data_cut(seed):
    scores = panel(seed, n=50)
    cuts = {name: median_cut(p) for name, p in scores.items()}
    w = weight_rows(seed, 50)
    pairs = pairwise_agreement(scores, w)
    result = panel_agreement(scores, w)
    recut_differs = False
    for row in range(len(w)):
        counts = w[row].astype(int)
        repeated = {name: np.repeat(p, counts) for name, p in scores.items()}
        repeated_cuts = {name: np.repeat(c, counts) for name, c in cuts.items()}
        for pair in pairs:
            x, y = pair["judge_a"], pair["judge_b"]
            np.testing.assert_allclose(pair["kappa"][row], cohen_kappa(repeated_cuts[x], repeated_cuts[y]), atol=1e-9)
            np.testing.assert_allclose(pair["rho"][row], spearman(repeated[x], repeated[y]), atol=1e-9)
            if row < 3:  # cutting each resample at its own median would be a different statistic
                recut = cohen_kappa(median_cut(repeated[x]), median_cut(repeated[y]))
                recut_differs |= not np.isclose(recut, pair["kappa"][row])
        kappas = [cohen_kappa(repeated_cuts[p["judge_a"]], repeated_cuts[p["judge_b"]]) for p in pairs]
        rhos = [spearman(repeated[p["judge_a"]], repeated[p["judge_b"]]) for p in pairs]
        expected = {
            "fleiss_kappa": fleiss_kappa(np.column_stack([repeated_cuts[k] for k in sorted(scores)])),
            "mean_kappa": np.mean(kappas),
            "mean_rho": np.mean(rhos),
            "rho_minus_kappa": np.mean(rhos) - np.mean(kappas),
        }
        for name, value in expected.items():
            assert result[name].shape == (5,)
            np.testing.assert_allclose(result[name][row], value, atol=1e-9)
    assert recut_differs


def test_weights_are_scale_free_and_fractional_weights_work():
    scores = panel(3, n=40)
    a, b = scores["judge-a"], scores["judge-d"]
    w = weight_rows(3, 40)[:3]
    ratings = np.column_stack([median_cut(p) for p in scores.values()])
    for fn, args in [(spearman, (a, b)), (cohen_kappa, (ratings[:, 0], ratings[:, 2])), (fleiss_kappa, (ratings,))]:
        np.testing.assert_allclose(fn(*args, 2.5 * w), fn(*args, w), atol=1e-12)
    # an unweighted call is the weighted call with one row of ones
    assert spearman(a, b, np.ones((1, 40)))[0] == pytest.approx(spearman(a, b), abs=1e-12)


# -- who is pooled: core/dynamics/pooling.py's rule in the agreement tables ---------------------------------------

FAST = MeasurementConfig(resamples=60, problem_resamples=20)


def test_the_pooling_rule_counts_answers_only():
    # abstentions (None, NaN) are not answers: the answers left are constant, or there are none
    members, out = pooling.split(
        {
            "varies": np.array([0.2, np.nan, 0.7]),
            "flat": np.array([0.4, np.nan, 0.4]),
            "silent": np.array([np.nan, np.nan]),
            "empty": np.array([]),
        }
    )
    assert members == ["varies"]
    assert [(x.judge, x.reason, x.answers) for x in out] == [
        ("empty", "no_answers", 0),
        ("flat", "constant", 2),
        ("silent", "no_answers", 0),
    ]
    assert out[1].value == 0.4 and out[1].metric == "excluded_constant" and out[0].metric == "excluded_no_answers"
    assert np.isnan(out[0].value)
    assert pooling.left_out("j", [0.3, None, 0.3]).reason == "constant"
    with pytest.raises(ValueError, match="1-D array of p_accept"):
        pooling.left_out("j", np.zeros((2, 2)))


def rows(table: pl.DataFrame, judge: str, condition: str, metric: str | None = None) -> pl.DataFrame:
    keep = (pl.col("judge") == judge) & (pl.col("condition") == condition)
    return table.filter(keep & (pl.col("metric") == metric) if metric else keep)


def planted(table: pl.DataFrame) -> pl.DataFrame:
    """Beside the informative judges a, b, c: k answers 0.5 on every blind attempt but follows a under nonblind;
    z abstains (null p_accept) on every other attempt and answers 0.7 on the rest, in both conditions."""
    k = table.filter(pl.col("judge") == "a").with_columns(
        pl.lit("k").alias("judge"),
        pl.when(pl.col("condition") == "blind").then(0.5).otherwise(pl.col("p_accept")).alias("p_accept"),
    )
    odd = pl.col("attempt_uid").str.slice(1).cast(pl.Int64) % 2 == 1
    z = table.filter(pl.col("judge") == "b").with_columns(
        pl.lit("z").alias("judge"), pl.when(odd).then(None).otherwise(0.7).cast(pl.Float64).alias("p_accept")
    )
    return pl.concat([table, k, z])


def test_agreement_tables_leave_out_a_judge_constant_on_their_attempts_with_a_note():
    base = synthetic_predictions()
    before, after = measure(base, FAST), measure(planted(base), FAST)
    pooled = ("fleiss_kappa", "mean_kappa", "mean_rho", "rho_minus_kappa")
    for table_name, figures in (("agreement", pooled), ("panel", ("roc_auc", "gain_over_mean_member", "members"))):
        for name in figures:
            old = rows(before[table_name], "panel", "blind", name).select("value", "lo", "hi", "n")
            new = rows(after[table_name], "panel", "blind", name).select("value", "lo", "hi", "n")
            assert len(new) == 1 and new.equals(old), (table_name, name)
    # blind: k (constant) and z (constant on its answers; its abstentions are not answers) are named, with why
    for table_name in ("agreement", "panel"):
        notes = after[table_name].filter((pl.col("condition") == "blind") & pl.col("metric").str.starts_with("excl"))
        assert notes.select("judge", "metric", "value", "n").sort("judge").rows() == [
            ("k", "excluded_constant", 0.5, 240),
            ("z", "excluded_constant", 0.7, 120),
        ]
        assert notes.sort("judge")["note"].to_list() == [
            "k left out: 240 answers under blind, all 0.5",
            "z left out: 120 answers under blind, all 0.7",
        ]
        assert before[table_name]["note"].is_null().all()
    pairs = after["agreement"].filter((pl.col("condition") == "blind") & pl.col("judge").str.contains("~"))
    assert sorted(set(pairs["judge"])) == ["a~b", "a~c", "b~c"]  # no pair with k or z
    # the pooled figures are those of the informative judges alone, computed directly
    blind = base.filter(pl.col("condition") == "blind").sort("attempt_uid")
    direct = panel_agreement({j: blind.filter(pl.col("judge") == j)["p_accept"].to_numpy() for j in "abc"})
    for name, value in direct.items():
        assert rows(after["agreement"], "panel", "blind", name)["value"].item() == pytest.approx(value)
    # nonblind: k answers like a and is a member there; z is still constant on what it answered
    assert rows(after["panel"], "panel", "nonblind", "members")["value"].item() == 4
    assert rows(after["agreement"], "k", "nonblind", "excluded_constant").is_empty()
    assert rows(after["agreement"], "a~k", "nonblind", "pairwise_kappa")["value"].item() == pytest.approx(1.0)
    assert rows(after["agreement"], "z", "nonblind", "excluded_constant").select("value", "n").row(0) == (0.7, 120)
    # the condition effect on Fleiss' kappa compares the pooled figures: it moves with k joining under nonblind
    effect = rows(after["condition_effects"], "panel", "nonblind - blind", "delta_fleiss_kappa")["value"].item()
    expected = (
        rows(after["agreement"], "panel", "nonblind", "fleiss_kappa")["value"].item()
        - rows(after["agreement"], "panel", "blind", "fleiss_kappa")["value"].item()
    )
    assert effect == pytest.approx(expected)


def test_a_judge_constant_only_where_the_others_answered_is_left_out_only_there():
    """e varies over all the attempts but answers 0.5 on the 80 that b answered (b abstained on the rest): e stays
    a panel member and pairs with a, but the pair b~e and the figures on the attempts every member answered leave
    it out, and those figures are then computed on the attempts a, b and c answered."""
    base = synthetic_predictions(n=120).filter(pl.col("condition") == "blind")
    answered_by_b = pl.col("attempt_uid").str.slice(1).cast(pl.Int64) % 3 != 0
    base = base.filter((pl.col("judge") != "b") | answered_by_b)
    e = base.filter(pl.col("judge") == "a").with_columns(
        pl.lit("e").alias("judge"), pl.when(answered_by_b).then(0.5).otherwise(pl.col("p_accept")).alias("p_accept")
    )
    tables = measure(pl.concat([base, e]), FAST)
    agreement_table = tables["agreement"]
    assert rows(tables["panel"], "panel", "blind", "members")["value"].item() == 4
    assert rows(agreement_table, "e", "blind", "excluded_constant").select("value", "n").row(0) == (0.5, 80)
    assert (
        "every member under blind answered" in rows(agreement_table, "e", "blind", "excluded_constant")["note"].item()
    )
    pair = rows(agreement_table, "b~e", "blind")
    assert pair.select("metric", "value", "n").rows() == [("excluded_constant", 0.5, 80)]
    assert pair["note"].item() == "pair b~e left out: e: 80 answers on the attempts both answered, all 0.5"
    assert len(rows(agreement_table, "a~e", "blind", "pairwise_kappa")) == 1  # e varies where a answered
    assert rows(agreement_table, "a~e", "blind", "pairwise_kappa")["n"].item() == 120
    answers = {j: base.filter(pl.col("judge") == j).sort("attempt_uid") for j in "abc"}
    shared = answers["b"]["attempt_uid"]
    direct = panel_agreement(
        {j: answers[j].filter(pl.col("attempt_uid").is_in(shared.implode()))["p_accept"].to_numpy() for j in "abc"}
    )
    fleiss = rows(agreement_table, "panel", "blind", "fleiss_kappa")
    assert fleiss["n"].item() == 80 and fleiss["value"].item() == pytest.approx(direct["fleiss_kappa"])
    # the kappa heatmap's data apply the same rule: the b~e cell is blank, a~e as in the table
    judges, kappa, left_out = kappa_matrix(pl.concat([base, e]))
    assert judges == ["a", "b", "c", "e"] and left_out == []
    assert np.isnan(kappa[1, 3]) and np.isnan(kappa[3, 1])
    assert kappa[0, 3] == pytest.approx(rows(agreement_table, "a~e", "blind", "pairwise_kappa")["value"].item())
    assert kappa[0, 1] == pytest.approx(rows(agreement_table, "a~b", "blind", "pairwise_kappa")["value"].item())


def kappa_matrix(part: pl.DataFrame):
    """The kappa heatmap's data of one condition's predictions, as the measurement asset makes them: from that
    condition's panel over the cells (core/report/plots.py ``measurement_figures``)."""
    (condition,) = part["condition"].unique().to_list()
    return panel_kappa_matrix(condition_panel(Universe(part, MeasurementConfig()), condition))


def test_the_kappa_heatmap_leaves_out_a_constant_judge():
    table = planted(synthetic_predictions(n=60))
    judges, kappa, left_out = kappa_matrix(table.filter(pl.col("condition") == "blind"))
    assert judges == ["a", "b", "c"] and [(x.judge, x.reason) for x in left_out] == [
        ("k", "constant"),
        ("z", "constant"),
    ]
    blind = table.filter(pl.col("condition") == "blind").sort("attempt_uid")
    expected = pairwise_agreement({j: blind.filter(pl.col("judge") == j)["p_accept"].to_numpy() for j in "abc"})
    for pair in expected:
        a, b = judges.index(pair["judge_a"]), judges.index(pair["judge_b"])
        assert kappa[a, b] == pytest.approx(pair["kappa"]) and kappa[b, a] == pytest.approx(pair["kappa"])
    judges, _, left_out = kappa_matrix(table.filter(pl.col("condition") == "nonblind"))
    assert judges == ["a", "b", "c", "k"] and [x.judge for x in left_out] == ["z"]


def test_the_report_shows_who_the_pooled_tables_left_out():
    import duckdb

    from cojudge_assets.core.report.content import left_out_table

    conn = duckdb.connect()
    agreement_table = pl.DataFrame(
        {
            "judge": ["k", "a~b", "panel"],
            "condition": ["blind", "blind", "blind"],
            "metric": ["excluded_constant", "pairwise_kappa", "fleiss_kappa"],
            "value": [0.5, 0.3, 0.2],
            "n": [240, 240, 240],
            "note": ["k left out: 240 answers under blind, all 0.5", None, None],
        }
    )
    consensus = pl.DataFrame(
        {
            "attempt_uid": ["t1", "t2"],
            "q": [0.2, 0.8],
            "left_out": ["k left out: 2 answers under nonblind, all 0.5"] * 2,
        }
    )
    conn.register("agreement_frame", agreement_table)
    conn.register("consensus_frame", consensus)
    conn.execute("create table agreement as select * from agreement_frame")
    conn.execute("create table rank_consensus as select * from consensus_frame")
    shown = left_out_table(conn, "agreement", "note")
    assert shown.frame.rows() == [("blind", "k left out: 240 answers under blind, all 0.5")]
    assert "left out of the agreement figures" in shown.caption
    assert left_out_table(conn, "rank_consensus", "left_out").frame.rows() == [
        ("k left out: 2 answers under nonblind, all 0.5",)
    ]
    conn.execute("update rank_consensus set left_out = null")
    assert left_out_table(conn, "rank_consensus", "left_out") is None  # no one left out: no table
    assert left_out_table(conn, "panel", "note") is None  # no such table
