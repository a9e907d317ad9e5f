"""Judges scored against the graded ceilings (core/graded/metrics.py)."""

from __future__ import annotations

import math

import numpy as np
import polars as pl
import pytest
from scipy import stats
from sklearn.metrics import matthews_corrcoef

from cojudge_assets.core.graded.metrics import _Layout as Layout
from cojudge_assets.core.graded.metrics import _statistics as statistics
from cojudge_assets.core.graded.metrics import (
    alpha_interval,
    alpha_interval_two_coders,
    chrf_plus_plus,
    edit_similarity,
    graded_metrics,
    judge_scores,
    mcc_counts,
    other_references,
    partial_spearman,
    reference_scores,
    spearman,
    table_iii,
    weighted_statistics,
)

CEILINGS = [1, 2, 3, 4, 5] * 6  # 30 programs, balanced
SEEDS = [f"s{i // 5}" for i in range(30)]  # five programs per seed, one per ceiling


def scores(values, judge="j") -> pl.DataFrame:
    return pl.DataFrame(
        {
            "judge": judge,
            "answer": "p_accept",
            "program_uid": [f"p{i:02d}" for i in range(30)],
            "seed_uid": SEEDS,
            "ceiling": CEILINGS,
            "score": [float(v) for v in values],
        }
    )


def values(table: pl.DataFrame, metric: str, subset: str = "all") -> dict:
    return table.filter((pl.col("metric") == metric) & (pl.col("subset") == subset)).row(0, named=True)


def test_a_judge_answering_the_ceiling_exactly_is_perfect():
    table = graded_metrics(scores(CEILINGS), n_resamples=200)
    for metric in ("spearman_rho", "kendall_tau", "krippendorff_alpha"):
        row = values(table, metric)
        assert row["value"] == pytest.approx(1.0) and row["lo"] == pytest.approx(1.0), metric
    assert values(table, "emd")["value"] == pytest.approx(0.0)
    assert values(table, "mean_score", "3")["value"] == pytest.approx(3.0)
    assert values(table, "mcc", "2-3")["value"] == pytest.approx(1.0)
    assert values(table, "spearman_rho")["n_seeds"] == 6 and values(table, "spearman_rho")["note"] is None


def test_a_constant_judge_has_no_rank_correlation_and_is_noted_as_constant():
    table = graded_metrics(scores([4.0] * 30), n_resamples=100)
    for metric in ("spearman_rho", "kendall_tau"):
        row = values(table, metric)
        assert row["value"] is None and row["lo"] is None and row["p_value"] is None, metric
        assert "constant score" in row["note"], metric
    assert values(table, "emd")["value"] > 0  # still measured: the distribution is off
    # sklearn says MCC 0 for a constant prediction; it is undefined, and the row says so instead of a 0
    mcc = values(table, "mcc", "4-5")
    assert mcc["value"] is None and "one class" in mcc["note"] and mcc["holm_p"] is None
    assert not table["value"].is_nan().any()  # undefined is null, never NaN


def test_a_reversing_judge_gets_minus_one():
    table = graded_metrics(scores([6 - c for c in CEILINGS]), n_resamples=100)
    assert values(table, "spearman_rho")["value"] == pytest.approx(-1.0)
    assert values(table, "kendall_tau")["value"] == pytest.approx(-1.0)
    assert values(table, "krippendorff_alpha")["value"] < 0
    # scored 5 and 4, ceilings 1 and 2 are both predicted above the midpoint 1.5: one class, MCC undefined (so
    # are the other pairs: 6 - k and 5 - k fall on one side of k + 0.5)
    for pair in ("1-2", "2-3", "3-4", "4-5"):
        assert values(table, "mcc", pair)["value"] is None, pair


def test_the_bootstrap_interval_brackets_a_noisy_judge_and_is_reproducible():
    rng = np.random.default_rng(0)
    noisy = np.clip(np.array(CEILINGS) + rng.normal(0, 1.2, 30), 0, 5)
    a = graded_metrics(scores(noisy), n_resamples=300)
    b = graded_metrics(scores(noisy), n_resamples=300)
    assert a.equals(b)
    row = values(a, "spearman_rho")
    assert row["lo"] < row["value"] < row["hi"] and 0 < row["value"] < 1


def test_krippendorff_alpha_interval_matches_the_textbook_value():
    # Krippendorff (2011), "Computing Krippendorff's alpha-reliability", the interval example without
    # missing data reduces to: two coders, values below; alpha computed by hand from D_o and D_e
    a = np.array([1, 2, 3, 3, 2, 1, 4, 1, 2])
    b = np.array([1, 2, 3, 3, 2, 2, 4, 1, 2])
    pooled = np.concatenate([a, b])
    n = len(pooled)
    d_o = np.mean((a - b) ** 2) * 2 / 2  # each unit's pair counted both ways over m - 1 = 1
    d_e = sum((x - y) ** 2 for x in pooled for y in pooled) / (n * (n - 1))
    assert alpha_interval(a.astype(float), b.astype(float)) == pytest.approx(1 - d_o / d_e, rel=1e-9)
    assert alpha_interval_two_coders(a.astype(float), b.astype(float)) == pytest.approx(1 - d_o / d_e, rel=1e-9)


def test_the_bootstraps_fast_forms_equal_the_packages():
    import krippendorff

    rng = np.random.default_rng(3)
    for _ in range(20):
        a, b = rng.uniform(0, 5, 40), rng.integers(1, 6, 40).astype(float)
        reference = krippendorff.alpha(reliability_data=np.vstack([a, b]), level_of_measurement="interval")
        assert alpha_interval(a, b) == pytest.approx(reference, rel=1e-9)
        assert alpha_interval_two_coders(a, b) == pytest.approx(reference, rel=1e-9)
        truth, predicted = rng.random(40) < 0.5, rng.random(40) < 0.4
        assert mcc_counts(truth, predicted) == pytest.approx(matthews_corrcoef(truth, predicted), abs=1e-12)
        assert spearman(a, b) == pytest.approx(stats.spearmanr(a, b).statistic, abs=1e-12)


@pytest.mark.parametrize("kind", ["continuous", "integer", "constant"])
def test_a_weighted_resample_equals_the_programs_repeated(kind):
    # the bootstrap's replicates are computed from weight rows (how many times each program was drawn); each
    # must equal the reference functions (scipy's kendalltau and wasserstein_distance, sklearn's MCC, the
    # average-rank Spearman, the alpha) on the programs repeated that many times
    rng = np.random.default_rng({"continuous": 0, "integer": 1, "constant": 2}[kind])
    for n in (3, 7, 25, 60):
        ceiling = rng.integers(1, 6, n)
        score = {
            "continuous": np.round(rng.uniform(0, 5, n), 1),  # ties too: one decimal
            "integer": rng.integers(0, 6, n).astype(float),
            "constant": np.full(n, 3.0),
        }[kind]
        weights = rng.multinomial(n, [1 / n] * n, size=15).astype(float)
        replicates = weighted_statistics(Layout(score, ceiling), weights)
        for b, row in enumerate(weights.astype(int)):
            take = np.repeat(np.arange(n), row)
            for key, expected in statistics(score[take], ceiling[take]).items():
                got = replicates[key][b]
                if math.isnan(expected):
                    assert math.isnan(got), (kind, n, b, key)
                else:
                    assert got == pytest.approx(expected, abs=1e-9), (kind, n, b, key)


def test_thousands_of_distinct_continuous_scores_in_bounded_memory():
    # the held-out course corpus failed here: the krippendorff package's units x V x V array for V distinct
    # scores asked for 32.4 GiB at 1,630 programs; 5,000 programs would ask for 1 TB
    import tracemalloc

    rng = np.random.default_rng(5)
    n = 5000
    ceiling = rng.integers(1, 6, n)
    frame = pl.DataFrame(
        {
            "judge": "j",
            "answer": "p_accept",
            "program_uid": [f"p{i:05d}" for i in range(n)],
            "seed_uid": [f"s{i // 5}" for i in range(n)],
            "ceiling": ceiling,
            "score": np.clip(ceiling + rng.normal(0, 1, n), 0, 5),
        }
    )
    assert frame["score"].n_unique() > 4000  # thousands of distinct values (the clipped ends tie)
    tracemalloc.start()
    try:
        table = graded_metrics(frame, n_resamples=100)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 300 * 2**20, f"{peak / 2**20:.0f} MiB allocated"  # a V x V array alone would be 200 MB
    alpha = values(table, "krippendorff_alpha")
    score = frame["score"].to_numpy()
    assert alpha["value"] == pytest.approx(alpha_interval_two_coders(score, ceiling.astype(float)), rel=1e-9)
    assert alpha["lo"] < alpha["value"] < alpha["hi"]
    assert values(table, "spearman_rho")["value"] == pytest.approx(stats.spearmanr(score, ceiling).statistic)


def test_answers_are_mapped_to_the_0_to_5_scale():
    graded = pl.DataFrame(
        {"program_uid": ["a", "b"], "seed_uid": ["s", "s"], "ceiling": [5, 1], "graded": [True, True]}
    )
    outputs = pl.DataFrame(
        {
            "judge": ["j", "j"],
            "attempt_uid": ["a", "b"],
            "status": ["ok", "ok"],
            "p_accept": [0.9, 0.1],
            "s_algo": [5, 1],
            "s_robust": [4, 1],
            "score": [5, None],  # AXIOM's 0-5 score, where asked; b's answer came without one
        }
    )
    mapped = judge_scores(graded, outputs).sort("answer", "program_uid")
    assert mapped["answer"].to_list() == ["p_accept", "p_accept", "rubric", "rubric", "score"]
    assert mapped["score"].to_list() == pytest.approx([4.5, 0.5, 4.375, 0.0, 5.0])  # 5p; 5 (mean - 1) / 4; as is


def test_reference_judges_score_a_program_against_its_seed():
    seed = "int main() {\n    int total = 0;\n    return total;\n}\n"
    assert chrf_plus_plus(seed, seed) == pytest.approx(1.0) and edit_similarity(seed, seed) == 1.0
    renamed = seed.replace("total", "a")
    assert 0 < chrf_plus_plus(seed, renamed) < 1 and 0 < edit_similarity(seed, renamed) < 1
    graded = pl.DataFrame(
        {
            "program_uid": ["p"],
            "seed_uid": ["s"],
            "ceiling": [4],
            "graded": [True],
            "code": [renamed],
            "language": ["c"],
        }
    )
    table = reference_scores(graded, pl.DataFrame({"seed_uid": ["s"], "code": [seed]}))
    assert set(table["judge"]) == {"chrF++", "CodeBLEU", "edit-similarity"}
    assert ((table["score"] > 0) & (table["score"] < 5)).all()


def test_table_iii_has_one_row_per_judge_in_percent():
    table = table_iii(graded_metrics(pl.concat([scores(CEILINGS, "exact"), scores([3] * 30, "flat")]), n_resamples=50))
    exact = table.filter(pl.col("judge") == "exact").row(0, named=True)
    assert exact["spearman_rho"] == 100.0 and exact["emd"] == 0.0 and exact["mean"] == pytest.approx(3.0)


def test_the_report_section_shows_every_judge_a_figure_and_no_nan(tmp_path):
    from cojudge_assets.core.frames import frames_connection
    from cojudge_assets.core.graded.verify import PROGRAM_SCHEMA, ceiling_balance, rule_yield
    from cojudge_assets.core.report import plots
    from cojudge_assets.core.report.content import GRADED_TITLE, READS, graded_section

    metrics = graded_metrics(pl.concat([scores(CEILINGS, "exact"), scores([3] * 30, "flat")]), n_resamples=50)
    programs = pl.DataFrame(schema=PROGRAM_SCHEMA)
    frames = {
        "graded_metrics": metrics,
        "graded_yield": rule_yield(programs),
        "graded_balance": ceiling_balance(programs),
    }
    assert set(frames) == set(READS["graded"])
    with frames_connection(frames) as conn:
        section = graded_section(conn, tmp_path)
    assert section is not None and len(section.tables) == 5
    (figure,) = section.figures
    assert plots.png_title(figure.path) == GRADED_TITLE == figure.caption
    third = next(t.frame for t in section.tables if "Table III" in t.caption)
    assert set(third["judge"]) == {"exact", "flat"}
    for table in section.tables:
        for column in table.frame.columns:
            if table.frame[column].dtype == pl.Float64:
                assert not table.frame[column].is_nan().any(), (table.caption, column)
    with frames_connection({}) as conn:
        assert graded_section(conn, tmp_path) is None  # the group not materialized: the section is left out


def planted(n: int = 300, *, problems: int = 12, seed: int = 0) -> dict[str, np.ndarray]:
    """n programs over ``problems`` problems, ceilings 1..5 balanced, and an edit size that grows with the ceiling
    (the construction the review found: the rewrites of ceilings 5-3 touch every site)."""
    rng = np.random.default_rng(seed)
    ceiling = np.tile(np.arange(1, 6), n // 5)
    return {
        "ceiling": ceiling,
        "edit_size": (10 * ceiling + rng.integers(0, 25, n)).astype(np.int64),
        "problem": np.array([f"q{i % problems:02d}" for i in range(n)]),
        "seed": np.array([f"s{i % (2 * problems):02d}" for i in range(n)]),
        "noise": rng.normal(0, 1, n),
    }


def judged(data: dict[str, np.ndarray], judges: dict[str, np.ndarray]) -> pl.DataFrame:
    n = len(data["ceiling"])
    return pl.concat(
        pl.DataFrame(
            {
                "judge": name,
                "answer": "score",
                "program_uid": [f"p{i:04d}" for i in range(n)],
                "seed_uid": data["seed"],
                "problem_id": data["problem"],
                "ceiling": data["ceiling"],
                "edit_size": data["edit_size"],
                "score": score.astype(float),
            }
        )
        for name, score in judges.items()
    )


def test_rho_controlled_for_edit_size_separates_a_judge_of_size_from_a_judge_of_the_ceiling():
    data = planted()
    table = graded_metrics(
        judged(
            data,
            {
                "by-size": np.clip(data["edit_size"] / 15, 0, 5),  # reads the size of the change alone
                "by-ceiling": data["ceiling"] + 0.1 * data["noise"],
            },
        ),
        n_resamples=200,
    )

    def rho(judge, metric):
        return table.filter((pl.col("judge") == judge) & (pl.col("metric") == metric)).row(0, named=True)

    assert rho("by-size", "spearman_rho")["value"] > 0.7  # pooled, it looks like a good judge
    assert abs(rho("by-size", "spearman_rho_partial")["value"]) < 0.05  # controlled for size, nothing is left
    assert rho("by-ceiling", "spearman_rho_partial")["value"] > 0.9
    # the closed form equals the correlation of rank residuals (the textbook definition), computed by hand
    noisy = data["ceiling"] + data["noise"]
    ranks = [stats.rankdata(x) for x in (noisy, data["ceiling"], data["edit_size"])]
    design = np.column_stack([np.ones(len(ranks[2])), ranks[2]])
    residuals = [r - design @ np.linalg.lstsq(design, r, rcond=None)[0] for r in ranks[:2]]
    by_hand = np.corrcoef(residuals[0], residuals[1])[0, 1]
    assert partial_spearman(noisy, data["ceiling"], data["edit_size"]) == pytest.approx(by_hand, abs=1e-12)


def test_rho_within_problems_beside_the_pooled_one_and_intervals_on_t_with_problems_minus_one():
    data = planted(problems=6)
    offset = np.array([int(p[1:]) for p in data["problem"]]) * 3.0  # each problem shifts every score
    table = graded_metrics(judged(data, {"j": data["ceiling"] + offset}), n_resamples=300)
    pooled, within = (
        table.filter(pl.col("metric") == m).row(0, named=True) for m in ("spearman_rho", "spearman_rho_within")
    )
    assert within["value"] == pytest.approx(1.0) and pooled["value"] < 0.5
    assert pooled["n_problems"] == 6 and pooled["df"] == 5
    half = stats.t.ppf(0.975, 5) * pooled["se"]
    assert pooled["lo"] == pytest.approx(max(-1, pooled["value"] - half))
    assert pooled["hi"] == pytest.approx(min(1, pooled["value"] + half))
    assert pooled["p_value"] == pytest.approx(2 * stats.t.sf(abs(pooled["value"]) / pooled["se"], 5))


def test_eighty_strong_effects_all_hold_after_holm():
    # with 1,000 resamples a percentile p cannot fall below 1/1001, and Holm multiplies the smallest by 80 and
    # more: the p from the bootstrap SE has no such floor, so every real effect of the family holds
    data = planted(200, problems=12)
    rng = np.random.default_rng(7)
    judges = {f"judge-{k:02d}": data["ceiling"] + rng.normal(0, 1.0, len(data["ceiling"])) for k in range(80)}
    table = graded_metrics(judged(data, judges), n_resamples=200)
    rho = table.filter(pl.col("metric") == "spearman_rho")
    assert len(rho) == 80 and (rho["value"] > 0.6).all()
    tests = table.filter(pl.col("p_value").is_not_null())
    assert len(tests) > 80 * 5  # rho, within, partial, tau, alpha and MCC of every judge: one family
    assert (rho["holm_p"] < 0.05).all()
    assert (table.filter(pl.col("p_value").is_null())["holm_p"].is_null()).all()  # no test, no adjustment


def test_full_and_rectifiable_scopes_with_and_without_ceiling_0():
    rng = np.random.default_rng(1)
    n = 120
    ceiling = np.tile(np.arange(0, 6), n // 6)
    frame = pl.DataFrame(
        {
            "judge": "j",
            "answer": "score",
            "program_uid": [f"p{i}" for i in range(n)],
            "seed_uid": [f"s{i % 20}" for i in range(n)],
            "problem_id": [f"q{i % 4}" for i in range(n)],
            "ceiling": ceiling,
            "edit_size": rng.integers(1, 50, n),
            "score": ceiling + rng.normal(0, 0.5, n),
        }
    )
    table = graded_metrics(frame, n_resamples=100)
    assert set(table["scope"]) == {"full", "rectifiable"}
    full = table.filter(pl.col("scope") == "full")
    assert "0-1" in full["subset"].to_list() and "0" in full["subset"].to_list()
    assert full.filter(pl.col("metric") == "spearman_rho")["n"].item() == n
    rectifiable = table.filter(pl.col("scope") == "rectifiable")
    assert "0-1" not in rectifiable["subset"].to_list()
    assert rectifiable.filter(pl.col("metric") == "spearman_rho")["n"].item() == n * 5 // 6
    only = graded_metrics(frame.filter(pl.col("ceiling") > 0), n_resamples=100)
    assert set(only["scope"]) == {"rectifiable"}  # no ceiling-0 program: no Full rows
    third = table_iii(table)
    assert third.select("scope").to_series().to_list() == ["full", "rectifiable"]


def test_the_other_reference_is_another_accepted_solution_of_the_problem_and_language_chosen_stably():
    seeds = pl.DataFrame(
        {
            "seed_uid": ["a", "b", "c", "d", "e"],
            "problem_id": ["p", "p", "p", "p", "q"],
            "language": ["c", "c", "c", "java", "c"],
            "usable": [True, True, True, True, True],
            "code": ["x"] * 5,
        }
    )
    graded = pl.DataFrame({"seed_uid": ["a", "d", "e"], "graded": [True, True, True]})
    chosen = other_references(graded, seeds)
    assert chosen["a"] in {"b", "c"}  # same problem and language, never itself
    assert "d" not in chosen and "e" not in chosen  # alone in its language / its problem: no other reference
    assert other_references(graded, seeds.reverse()) == chosen  # the choice does not depend on row order
