"""Contamination and findings (core/design/robustness.py): a planted leak is flagged, an honest judge is not; a
finding's status follows its interval."""

import numpy as np
import polars as pl
import pytest

from cojudge_assets.core.design import robustness as rb
from cojudge_assets.core.design import split as ds

CONFIG = rb.RobustnessConfig(resamples=300, seed=7)


@pytest.fixture(scope="module")
def corpus() -> tuple[pl.DataFrame, pl.DataFrame]:
    """600 trajectories of 2 attempts over 30 problems, their design split, and two judges under one condition:
    ``honest`` is equally informative everywhere; ``leaky`` is very good on the inspectable part (what a prompt
    designer could read) and no better than chance on the never-inspected part."""
    rng = np.random.default_rng(0)
    n_traj = 600
    participant = np.repeat([f"u{i}" for i in range(n_traj)], 2)
    problem = np.repeat([f"p{i % 30}" for i in range(n_traj)], 2)
    attempts = pl.DataFrame(
        {
            "attempt_uid": [f"a{i:05d}" for i in range(2 * n_traj)],
            "participant": participant,
            "problem_id": problem,
            "turn": np.tile([1, 2], n_traj),
        }
    )
    split = ds.assign_split(attempts, seed=2026)
    inspectable = ds.attempt_splits(attempts, split).is_in(list(ds.INSPECTABLE)).to_numpy()
    y = rng.binomial(1, 0.3, len(attempts))
    honest = 1 / (1 + np.exp(-(1.2 * (2 * y - 1) + rng.normal(0, 1.5, len(y)))))
    leaky = np.where(
        inspectable,
        1 / (1 + np.exp(-(2.5 * (2 * y - 1) + rng.normal(0, 1.0, len(y))))),
        rng.uniform(0, 1, len(y)),
    )
    base = attempts.with_columns(pl.Series("y", y), pl.lit(False).alias("evidence"), pl.lit("blind").alias("condition"))
    predictions = pl.concat(
        [
            base.with_columns(pl.lit("honest").alias("judge"), pl.Series("p_accept", honest)),
            base.with_columns(pl.lit("leaky").alias("judge"), pl.Series("p_accept", leaky)),
        ]
    )
    return predictions, split


def test_a_planted_leak_is_flagged_and_an_honest_judge_is_not(corpus):
    predictions, split = corpus
    table = rb.contamination(predictions, split, CONFIG)
    assert set(table["metric"].to_list()) == set(rb.CONTAMINATION_METRICS)
    leaky = table.filter((pl.col("judge") == "leaky") & (pl.col("metric") == "roc_auc")).row(0, named=True)
    assert leaky["flagged"] and leaky["difference_lo"] > 0  # inspectable - never-inspected excludes 0
    assert leaky["never_inspected"] < 0.6 < 0.9 < leaky["inspectable"]  # the contrast is inspectable vs test
    assert leaky["difference"] == pytest.approx(leaky["inspectable"] - leaky["never_inspected"])
    honest = table.filter(pl.col("judge") == "honest")
    assert honest.filter(pl.col("metric") == "roc_auc")["flagged"].to_list() == [False]
    assert honest.filter(pl.col("metric") != "roc_auc")["flagged"].is_null().all()
    # beside "not flagged": the smallest difference the check could have flagged (ROC-AUC rows only)
    assert 0.02 < honest.filter(pl.col("metric") == "roc_auc")["detectable"][0] < 0.5
    assert table.filter(pl.col("metric") != "roc_auc")["detectable"].is_null().all()
    # the prevalence of both parts is reported, without a flag
    prevalence = table.filter(pl.col("metric") == "base_rate")
    assert prevalence["flagged"].is_null().all() and prevalence["never_inspected"].is_between(0.1, 0.5).all()
    splits = ds.attempt_splits(predictions, split)
    assert (table["n_never_inspected"] == int((splits == "test").sum() / 2)).all()
    assert (table["n_inspectable"] == int(splits.is_in(list(ds.INSPECTABLE)).sum() / 2)).all()


def test_the_flag_is_one_sided_and_on_roc_auc_only():
    assert rb.leak_flag("roc_auc", 0.01, 0.1) and not rb.leak_flag("roc_auc", -0.1, -0.01)
    assert rb.leak_flag("ece15", -0.1, -0.01) is None and rb.leak_flag("base_rate", 0.01, 0.1) is None
    assert rb.leak_flag("roc_auc", float("nan"), float("nan")) is None  # undefined on the never-inspected part


def test_findings_state_each_comparison_under_each_scheme(corpus):
    predictions, split = corpus
    table = rb.findings(predictions, split, config=CONFIG)
    kinds = table.group_by("kind").len().sort("kind")
    assert dict(kinds.iter_rows()) == {"above_chance": 2, "judge_vs_judge": 1, "panel_vs_mean_member": 1}
    leaky = table.filter((pl.col("kind") == "above_chance") & (pl.col("judge") == "leaky")).row(0, named=True)
    assert leaky["status"] == "holds" and leaky["never_inspected_status"] == "tie"  # the leak shows in the findings
    pair = table.filter(pl.col("kind") == "judge_vs_judge").row(0, named=True)
    assert pair["estimate"] > 0 and pair["never_inspected_status"] == "reversed"  # leaky wins overall, loses unseen
    for prefix in ("", "problem_", "equal_weights_", "never_inspected_"):
        assert table[f"{prefix}status"].is_in(["holds", "tie", "reversed"]).all()
    assert (table.filter(pl.col("widening").is_not_null())["widening"] > 0).all()


def test_status_flips_to_tie_when_the_interval_widens_over_zero():
    lo, hi = 0.02, 0.12
    centre, half = (lo + hi) / 2, (hi - lo) / 2
    assert rb.status(lo, hi) == "holds"
    assert rb.status(centre - 1.5 * half, centre + 1.5 * half) == "tie"  # widened 1.5x: now over 0
    assert rb.status(-hi, -lo) == "reversed"


def test_a_stored_problem_interval_over_chance_makes_the_row_a_tie(corpus):
    predictions, split = corpus
    # the measurement's judge_metrics for the honest judge: trajectory interval above 0.5, problem interval over it
    stored = pl.DataFrame(
        {
            "judge": ["honest"],
            "condition": ["blind"],
            "metric": ["roc_auc"],
            "value": [0.56],
            "lo": [0.52],
            "hi": [0.60],
            "lo_problem": [0.49],
            "hi_problem": [0.63],
        }
    )
    table = rb.findings(predictions, split, judge_metrics=stored, config=CONFIG)
    row = table.filter((pl.col("kind") == "above_chance") & (pl.col("judge") == "honest")).row(0, named=True)
    assert (row["estimate"], row["lo"], row["hi"]) == pytest.approx((0.06, 0.02, 0.10))
    assert row["status"] == "holds" and row["problem_status"] == "tie"
    assert row["widening"] == pytest.approx(0.14 / 0.08)
    assert rb.widening_by_judge(table).filter(pl.col("judge") == "honest")["widening"][0] == pytest.approx(1.75)


def test_perturbation_arms_are_rows_with_their_seed_interval():
    metrics = pl.DataFrame(
        {
            "judge": ["a", "b"],
            "metric": ["arm_discrimination", "arm_discrimination"],
            "subset": ["all", "all"],
            "value": [0.8, 0.52],
            "lo": [0.7, 0.45],
            "hi": [0.9, 0.6],
            "n": [100, 100],
            "n_seeds": [10, 10],
        }
    )
    empty = pl.DataFrame(schema={"attempt_uid": pl.String})
    table = rb.findings(empty, pl.DataFrame(), perturbation_metrics=metrics)
    assert table["status"].to_list() == ["holds", "tie"] and (table["resampling"] == "mutation seed").all()


def test_the_report_section_shows_every_finding_and_the_contamination(corpus, tmp_path):
    import duckdb

    from cojudge_assets.core.report.findings import findings_section

    predictions, split = corpus
    found = rb.findings(predictions, split, config=CONFIG)
    leak = rb.contamination(predictions, split, CONFIG)
    conn = duckdb.connect()
    assert findings_section(conn, tmp_path) is None  # no findings table: no section
    for name, frame in {"findings": found, "contamination": leak, "design_split": split}.items():
        conn.register(f"{name}_frame", frame)
        conn.execute(f"create table main.{name} as select * from {name}_frame")
    section = findings_section(conn, tmp_path)
    assert section.title == "What the data supports, and how robust it is"
    first = section.tables[0].frame
    assert first["finding"].to_list() == sorted(first["finding"].to_list(), key=lambda f: "panel" in f)  # by kind
    assert first.height == found.height and first["never-inspected part"].str.starts_with("tie: ").any()
    shown = {t.caption.split(":")[0]: t.frame for t in section.tables}
    contamination = shown["Prompt-design contamination"]
    assert contamination.filter(pl.col("judge") == "leaky")["flagged"].to_list() == ["yes"]
    assert (
        contamination.filter(pl.col("judge") == "honest")["flagged"]
        .str.starts_with("no (detectable at 80% power: ")
        .all()
    )
    sizes = shown["The design split (groups fixed once per corpus; train and validation are inspectable)"]
    assert sizes["split"].to_list() == ["train", "validation", "test"] and sizes["groups"].sum() == 600
    assert "intervals: bootstrap (analytic where" in section.tables[0].caption  # 1,200 attempts: all bootstrapped
    assert "clustered by trajectory (bootstrap)" in contamination_caption(section)
    assert "Problem resampling" not in section.intro  # no attempts table: the problems are not counted
    attempts = predictions.filter(pl.col("judge") == "honest").select("attempt_uid", "problem_id")
    conn.register("attempts_frame", attempts)
    conn.execute("create table main.attempts as select * from attempts_frame")
    section = findings_section(conn, tmp_path)
    assert "this study's 30 problems: with fewer than 100" in section.intro  # 30 problems: the caution
    conn.execute(
        "create or replace table main.attempts as select attempt_uid, attempt_uid as problem_id from attempts_frame"
    )
    assert "Problem resampling" not in findings_section(conn, tmp_path).intro  # 1,200 problems: none


def contamination_caption(section) -> str:
    return next(t.caption for t in section.tables if t.caption.startswith("Prompt-design contamination"))


def test_the_interval_methods_in_words():
    from cojudge_assets.core.report.findings import interval_methods

    assert interval_methods(pl.DataFrame({"ci_method": ["analytic", None, "bootstrap", "analytic"]})) == (
        "analytic and bootstrap"
    )
    assert interval_methods(pl.DataFrame({"ci_method": ["analytic"]})) == "analytic"
    assert interval_methods(pl.DataFrame({"lo": [0.1]})) == "bootstrap"  # a table written before the column


def test_a_split_by_problem_never_inspects_a_test_problem(corpus):
    predictions, by_trajectory = corpus
    attempts = predictions.filter(pl.col("judge") == "honest")
    seen = by_trajectory.filter(pl.col("split").is_in(list(ds.INSPECTABLE)))["problem_id"]
    tested = by_trajectory.filter(pl.col("split") == "test")["problem_id"]
    assert set(tested) & set(seen)  # by trajectory: test problems are inspectable through other trajectories
    by_problem = ds.assign_split(attempts, by_trajectory, seed=2026, unit="problem")
    assert set(by_problem["unit"]) == {"problem"} and by_problem.height == 30  # the stored split is replaced
    seen = by_problem.filter(pl.col("split").is_in(list(ds.INSPECTABLE)))["problem_id"]
    tested = by_problem.filter(pl.col("split") == "test")["problem_id"]
    assert len(tested) > 0 and not set(tested) & set(seen)
    assert ds.assign_split(attempts, by_problem, seed=2026).equals(by_problem)  # then kept, as any stored split
    table = rb.contamination(predictions, by_problem, CONFIG, metrics=("roc_auc",))
    assert table["metric"].to_list() == ["roc_auc", "roc_auc"]
    with pytest.raises(ValueError, match="'unit' must be"):
        ds.assign_split(attempts, unit="participant")


def _simulated(rng: np.random.Generator, leak: float, n: int = 2000, auc: float = 0.70) -> pl.DataFrame:
    """One attempt per trajectory; the judge's ROC-AUC is ``auc`` on test and ``auc + leak`` on the inspectable
    part (binormal scores: AUC = Phi(d / sqrt 2))."""
    from scipy.stats import norm

    y = rng.binomial(1, 0.4, n)
    seen = _SIM_SEEN
    d = np.where(seen, np.sqrt(2) * norm.ppf(auc + leak), np.sqrt(2) * norm.ppf(auc))
    score = y * d + rng.normal(0, 1, n)
    return _SIM_BASE.with_columns(pl.Series("y", y), pl.Series("p_accept", 1 / (1 + np.exp(-score))))


_SIM_ATTEMPTS = pl.DataFrame(
    {"attempt_uid": [f"s{i:04d}" for i in range(2000)], "participant": [f"u{i}" for i in range(2000)]}
).with_columns(pl.lit("p").alias("problem_id"), pl.lit(1).alias("turn"))
_SIM_SPLIT = ds.assign_split(_SIM_ATTEMPTS, seed=11)
_SIM_SEEN = ds.attempt_splits(_SIM_ATTEMPTS, _SIM_SPLIT).is_in(list(ds.INSPECTABLE)).to_numpy()
_SIM_BASE = _SIM_ATTEMPTS.with_columns(
    pl.lit(False).alias("evidence"), pl.lit("blind").alias("condition"), pl.lit("j").alias("judge")
)


@pytest.mark.slow
def test_the_printed_detectable_difference_is_the_simulated_80_percent_power_point():
    # The printed figure on one corpus without a leak, then the flag's rate on corpora with a planted leak 0.02
    # below and above it: the simulated 80%-power point must lie within 0.02 of the printed figure.
    config = rb.RobustnessConfig(resamples=200, seed=3)
    rng = np.random.default_rng(2026)
    printed = rb.contamination(_simulated(rng, 0.0), _SIM_SPLIT, config, metrics=("roc_auc",))["detectable"][0]
    assert 0.05 < printed < 0.2

    def power(leak: float, runs: int = 200) -> float:
        flags = [
            rb.contamination(_simulated(rng, leak), _SIM_SPLIT, config, metrics=("roc_auc",))["flagged"][0]
            for _ in range(runs)
        ]
        return float(np.mean(flags))

    below, above = power(printed - 0.02), power(printed + 0.02)
    assert below < 0.80 < above, (printed, below, above)


# -- one row per distinct result, by construction, Holm (issue 26) --------------------------------------------

CONDITIONS = ["blind", "nonblind", "prefix12k"]


@pytest.fixture(scope="module")
def conditions_corpus(corpus) -> tuple[pl.DataFrame, pl.DataFrame]:
    """The corpus under three conditions: ``honest`` ignores the context (the same p under each), ``leaky`` does
    not (its p moves by condition), and ``flat`` answers one value everywhere."""
    predictions, split = corpus
    rng = np.random.default_rng(5)
    frames = []
    for i, condition in enumerate(CONDITIONS):
        honest = predictions.filter(pl.col("judge") == "honest").with_columns(pl.lit(condition).alias("condition"))
        leaky = predictions.filter(pl.col("judge") == "leaky")
        moved = np.clip(leaky["p_accept"].to_numpy() + rng.normal(0, 0.05 * (i + 1), len(leaky)), 0, 1)
        leaky = leaky.with_columns(pl.lit(condition).alias("condition"), pl.Series("p_accept", moved))
        flat = honest.with_columns(pl.lit("flat").alias("judge"), pl.lit(0.7).alias("p_accept"))
        frames += [honest, leaky, flat]
    return pl.concat(frames), split


@pytest.fixture(scope="module")
def distinct(conditions_corpus) -> pl.DataFrame:
    predictions, split = conditions_corpus
    return rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=200, seed=7))


def test_a_judge_that_ignores_the_context_has_one_row_per_distinct_result(distinct):
    above = distinct.filter(pl.col("kind") == "above_chance")
    honest = above.filter(pl.col("judge") == "honest")
    assert honest.height == 1 and honest["condition"][0] == "blind, prefix12k, nonblind"
    assert (
        honest["shared_by"][0] == 3
        and honest["finding"][0] == "honest above chance under blind, prefix12k and nonblind"
    )
    assert above.filter(pl.col("judge") == "leaky").height == 3  # its answers differ by condition: three results
    # no two rows of the table state the same numbers for the same claim
    numbers = [c for c in distinct.columns if c.endswith(("estimate", "lo", "hi"))]
    assert distinct.select("kind", "judge", "versus", *numbers).is_duplicated().sum() == 0


def test_comparing_conditions_of_a_context_blind_judge_is_no_difference_by_construction(distinct):
    pairs = distinct.filter(pl.col("kind") == "condition_vs_condition")
    honest = pairs.filter(pl.col("judge") == "honest").row(0, named=True)
    assert pairs.filter(pl.col("judge") == "honest").height == 1 and honest["shared_by"] == 3  # the three pairs
    assert honest["finding"] == (
        "honest: no difference between blind, prefix12k and nonblind by construction (the same answers under each)"
    )
    assert {honest[f"{p}status"] for p in rb.PREFIX.values()} == {"by construction"}
    assert honest["family"] is None and honest["p_value"] is None and honest["holm_status"] == "by construction"
    assert (honest["estimate"], honest["lo"], honest["hi"]) == (0.0, 0.0, 0.0)
    assert pairs.filter(pl.col("judge") == "leaky").height == 3


def test_rows_at_exactly_zero_state_no_direction(distinct):
    flat = distinct.filter((pl.col("kind") == "above_chance") & (pl.col("judge") == "flat")).row(0, named=True)
    assert (flat["estimate"], flat["lo"], flat["hi"]) == (0.0, 0.0, 0.0)
    assert flat["finding"] == "flat at chance under blind, prefix12k and nonblind" and flat["status"] == "tie"
    zero = distinct.filter((pl.col("estimate") == 0) & (pl.col("lo") == 0) & (pl.col("hi") == 0))
    assert zero.height >= 2
    assert not zero["finding"].str.contains(" above ").any()


def test_holm_is_applied_within_the_stated_family(distinct):
    from statsmodels.stats.multitest import multipletests

    family = distinct.filter(pl.col("family") == "roc_auc")
    tested = distinct.filter((pl.col("status") != "by construction") & pl.col("p_value").is_not_null())
    assert family.height == tested.height > 0
    # the rows left out test nothing: by construction, or replicates that never vary (an interval [x, x])
    untested = distinct.filter((pl.col("status") != "by construction") & pl.col("p_value").is_null())
    assert (untested["lo"] == untested["hi"]).all() and untested["family"].is_null().all()
    adjusted = multipletests(family["p_value"].to_numpy(), alpha=0.05, method="holm")[1]
    assert family["holm_p"].to_numpy() == pytest.approx(adjusted)
    assert (family["holm_p"] >= family["p_value"]).all()
    for row in family.iter_rows(named=True):
        if row["status"] in ("holds", "reversed"):
            assert row["holm_status"] == (row["status"] if row["holm_p"] < 0.05 else "tie")
        else:
            assert row["holm_status"] == row["status"]
        # the raw status and the bootstrap p agree: the interval excludes 0 where p < 0.05
        assert (row["status"] in ("holds", "reversed")) == (row["p_value"] < 0.05) or abs(row["p_value"] - 0.05) < 0.02


def test_holm_demotes_a_raw_result_that_does_not_survive_the_family():
    rows = [
        {"family": "roc_auc", "p_value": 0.03, "status": "holds"},
        {"family": "roc_auc", "p_value": 0.001, "status": "holds"},
        {"family": "roc_auc", "p_value": 0.4, "status": "tie"},
        {"family": None, "p_value": None, "status": "by construction"},
    ]
    rb.holm(rows)
    assert [r["holm_status"] for r in rows] == ["tie", "holds", "tie", "by construction"]
    assert rows[0]["holm_p"] == pytest.approx(0.06) and rows[1]["holm_p"] == pytest.approx(0.003)


def test_perturbation_rows_are_filled_under_all_four_checks(corpus):
    from cojudge_assets.core.perturbation.stats import PAIR_SCHEMA, PerturbationConfig, perturbation_metrics

    predictions, split = corpus
    attempts = predictions.filter(pl.col("judge") == "honest").select("attempt_uid", "participant", "problem_id")
    rng = np.random.default_rng(3)
    seeds = attempts.filter(pl.col("attempt_uid").str.slice(-1).is_in(["0", "2", "4"]))["attempt_uid"].to_list()
    rows = []
    for seed in seeds:
        for k, arm in enumerate(["semantic", "semantic", "control"]):
            drop = rng.normal(-0.3, 0.2) if arm == "semantic" else rng.normal(0, 0.05)
            rows.append(
                {
                    "judge": "a",
                    "seed_uid": seed,
                    "mutant_uid": f"{seed}-m{k}",
                    "operator": "ARITH_FLIP" if arm == "semantic" else "RENAME_LOCAL",
                    "arm": arm,
                    "severity": 2 if arm == "semantic" else None,
                    "in_loop": k >= 1,
                    "in_guard": False,
                    "behaviour_changed": arm == "semantic",
                    "p_seed": 0.9,
                    "p_mutant": float(np.clip(0.9 + drop, 0, 1)),
                }
            )
    pairs = pl.DataFrame(rows, schema=PAIR_SCHEMA)
    metrics = perturbation_metrics(pairs, PerturbationConfig(n_resamples=200))
    table = rb.findings(
        pl.DataFrame(schema={"attempt_uid": pl.String}),
        split,
        perturbation_metrics=metrics,
        perturbation_pairs=pairs,
        attempts=attempts,
        config=rb.RobustnessConfig(resamples=200, seed=7),
    )
    assert table["kind"].unique().to_list() == ["perturbation_arm"] and table.height == 3  # all, loop, confirmed
    for prefix in rb.PREFIX.values():
        assert table[f"{prefix}status"].is_in(["holds", "tie", "reversed"]).all(), prefix
        assert table[f"{prefix}estimate"].is_not_null().all()
    row = table.filter(pl.col("condition") == "all").row(0, named=True)
    assert row["status"] == "holds" and row["problem_status"] == "holds" and row["equal_weights_estimate"] > 0.3
    assert row["widening"] is not None and row["family"] == "arm_discrimination" and row["p_value"] < 0.01
    # the never-inspected check uses the mutants of test seeds only: a subset of the seeds
    assert row["never_inspected_hi"] - row["never_inspected_lo"] > row["hi"] - row["lo"]


def test_the_contamination_table_shows_conditions_with_the_same_result_as_one_row(conditions_corpus):
    from cojudge_assets.core.report.findings import contamination_table, differences_table

    predictions, split = conditions_corpus
    table = rb.contamination(predictions, split, rb.RobustnessConfig(resamples=100, seed=7))
    shown = contamination_table(table)
    assert shown.filter(pl.col("judge") == "honest")["condition"].to_list() == ["blind, nonblind, prefix12k"]
    assert shown.filter(pl.col("judge") == "leaky").height == 3  # its answers move with the condition
    assert differences_table(table).filter(pl.col("judge") == "honest").height == 1


def test_a_family_of_eighty_strong_effects_all_hold_after_holm():
    # a percentile p cannot fall below 1 / (B + 1): with 1,000 resamples Holm's smallest adjusted p in a family of
    # 80 would be 80 / 1001 > 0.05, and nothing could hold; the p from the bootstrap SE has no floor
    rng = np.random.default_rng(11)
    rows = []
    for k in range(80):
        replicates = rng.normal(0.15, 0.03, 1000)
        rows.append({"family": "roc_auc", "p_value": rb.bootstrap_p(0.15, replicates), "status": "holds", "k": k})
        assert (replicates > 0).all()  # every replicate above 0: the percentile p would be its floor, 1/1001
    rb.holm(rows)
    assert all(r["holm_status"] == "holds" for r in rows)
    assert max(r["holm_p"] for r in rows) < 1e-4


def test_a_row_whose_replicates_do_not_vary_is_not_a_test():
    # the static-rubric "loop" row: 0.5 [0.5, 0.5] in every resample, p = 1 under the old rule and counted in Holm
    assert rb.bootstrap_p(0.0, np.zeros(1000)) is None
    assert rb.bootstrap_p(None, np.array([0.1, 0.2])) is None
    assert rb.bootstrap_p(0.1, np.array([0.1])) is None  # fewer than 2 replicates
    rows = [
        {"family": "roc_auc", "p_value": None, "status": "tie"},
        {"family": "roc_auc", "p_value": 0.01, "status": "holds"},
    ]
    rb.holm(rows)
    assert rows[0]["holm_p"] is None and rows[1]["holm_p"] == pytest.approx(0.01)  # a family of one real test


def _trajectories_of_two(n_traj: int, *, problems: int) -> pl.DataFrame:
    """``n_traj`` trajectories of 2 attempts (a participant each), spread over ``problems`` problems in turn."""
    return pl.DataFrame(
        {
            "attempt_uid": [f"a{i:05d}" for i in range(2 * n_traj)],
            "participant": np.repeat([f"u{i}" for i in range(n_traj)], 2),
            "problem_id": np.repeat([f"p{i % problems}" for i in range(n_traj)], 2),
            "turn": np.tile([1, 2], n_traj),
        }
    )


@pytest.fixture(scope="module")
def large_corpus() -> tuple[pl.DataFrame, pl.DataFrame]:
    """5,000 trajectories of 2 attempts over 30 problems and one judge: 10,000 predictions, about 1,000 of them
    never inspected, so both kinds of interval apply from an analytic_from under that."""
    rng = np.random.default_rng(0)
    attempts = _trajectories_of_two(5000, problems=30)
    y = rng.binomial(1, 0.3, len(attempts))
    p = 1 / (1 + np.exp(-(1.2 * (2 * y - 1) + rng.normal(0, 1.5, len(y)))))
    predictions = attempts.with_columns(
        pl.Series("y", y),
        pl.lit(False).alias("evidence"),
        pl.lit("blind").alias("condition"),
        pl.lit("honest").alias("judge"),
        pl.Series("p_accept", p),
    )
    return predictions, ds.assign_split(attempts, seed=2026)


def test_contamination_s_analytic_intervals_agree_with_the_bootstrap_within_a_tenth_of_their_width(large_corpus):
    # the same cell both ways: with analytic_from 900 (its never-inspected part has about 1,000 predictions)
    # analytic; with analytic_from=None the bootstrap. The point figures are the same; each interval end within 10%
    # of the bootstrap interval's width (measured: within 6%; on 1,200 predictions ECE's are 58% apart, which is why
    # the switch is at 5,000). At the default 5,000 the cell is bootstrapped: its never-inspected part is under it
    predictions, split = large_corpus
    boot = rb.contamination(predictions, split, rb.RobustnessConfig(resamples=1000, seed=7, analytic_from=None))
    exact = rb.contamination(predictions, split, rb.RobustnessConfig(resamples=1000, seed=7, analytic_from=900))
    default = rb.contamination(predictions, split, rb.RobustnessConfig(resamples=1000, seed=7))
    assert set(default["ci_method"].to_list()) == {"bootstrap"}
    assert exact["n_never_inspected"].min() >= 900 > exact["n_never_inspected"].min() - 200
    assert set(boot["ci_method"].to_list()) == {"bootstrap"} and set(exact["ci_method"].to_list()) == {"analytic"}
    assert len(boot) == len(exact) == len(rb.CONTAMINATION_METRICS)
    for b, a in zip(boot.iter_rows(named=True), exact.iter_rows(named=True)):
        assert (b["judge"], b["metric"]) == (a["judge"], a["metric"])
        for side in ("inspectable", "never_inspected", "difference"):
            assert a[side] == pytest.approx(b[side], abs=1e-12)
            width = b[f"{side}_hi"] - b[f"{side}_lo"]
            for end in ("lo", "hi"):
                assert abs(a[f"{side}_{end}"] - b[f"{side}_{end}"]) <= 0.1 * width, (b["metric"], side, end)
        assert a["flagged"] == b["flagged"]
        assert (a["detectable"] is None) == (b["detectable"] is None)
        if b["detectable"] is not None:
            assert a["detectable"] == pytest.approx(b["detectable"], rel=0.1)


def test_the_universe_read_a_cell_at_a_time_is_that_of_the_whole_table(conditions_corpus):
    """findings reads its predictions a judge x condition at a time (issue 33): the universe it builds is the one
    the whole table made: the same attempts, folds, trajectories and, cell by cell, the same positions and p."""
    from cojudge_assets.core.frames import frame_reader

    predictions, _ = conditions_corpus
    whole = rb._universe(predictions, CONFIG)
    cells = rb._universe_of_cells(frame_reader("predictions", predictions), CONFIG)
    assert whole.attempts.equals(cells.attempts)
    assert np.array_equal(whole.folds, cells.folds) and np.array_equal(whole.trajectory, cells.trajectory)
    assert sorted(whole.cells) == sorted(cells.cells) and len(cells.cells) == 9
    for key, cell in whole.cells.items():
        assert np.array_equal(cell.index, cells.cells[key].index) and np.array_equal(cell.p, cells.cells[key].p)
    assert (whole.judges, whole.conditions) == (cells.judges, cells.conditions)


def test_findings_read_from_the_store_a_cell_at_a_time_are_those_of_the_frame(conditions_corpus, distinct, tmp_path):
    import duckdb

    from cojudge_assets.core.frames import duckdb_table_reader
    from cojudge_tests.core.test_cell_readers import Counted

    predictions, split = conditions_corpus
    database = str(tmp_path / "study.duckdb")
    with duckdb.connect(database) as conn:
        conn.execute("create table main.predictions as select * from predictions")
    counted = Counted(duckdb_table_reader(database, "main.predictions", "predictions", read_only=True))
    table = rb.findings(counted.reader, split, config=rb.RobustnessConfig(resamples=200, seed=7))
    assert table.equals(distinct)
    rows = [r for r in counted.reads if not r[2]]
    assert len(rows) == 9 and all(set(r[1]) == {"judge", "condition"} for r in rows)  # a cell at a time
    assert max(r[3] for r in rows) == len(predictions) // 9


def test_per_problem_aucs_are_those_of_one_weight_row_per_problem():
    """The equal-weights scheme's per-problem ROC-AUCs, computed once a problem at a time, are the weighted ROC-AUC
    with one 0/1 weight row per problem over every attempt (what each block of resamples computed before: P x n
    floats), NaN for a problem with one label or none; ties in the scores included."""
    from cojudge_assets.core.stats import metrics as m

    rng = np.random.default_rng(11)
    n, problems = 3000, 25
    problem = rng.integers(0, problems - 1, n)  # the last problem has no attempt
    y = rng.binomial(1, 0.4, n)
    y[problem == 3] = 1  # one label only
    p = np.round(rng.uniform(size=n), 2)  # ties
    one_hot = (problem[None, :] == np.arange(problems)[:, None]).astype(np.float64)
    weighted = m.roc_auc(y, p, sample_weight=one_hot)  # NaN rows where a problem's total weight of a label is 0
    mine = rb._per_problem_auc(y, p, problem, problems)
    assert np.isnan(mine[3]) and np.isnan(mine[problems - 1])
    np.testing.assert_allclose(mine, weighted, rtol=1e-12, equal_nan=True)


@pytest.fixture(scope="module")
def large_panel_corpus() -> tuple[pl.DataFrame, pl.DataFrame]:
    """5,000 trajectories of 2 attempts over 40 problems, two judges (``sharp``, ``dull``) under two conditions, a
    trajectory effect shared by label and score: 10,000 predictions a cell, above the default analytic_from."""
    rng = np.random.default_rng(3)
    n_traj = 5000
    attempts = _trajectories_of_two(n_traj, problems=40)
    effect = np.repeat(rng.normal(0, 1, n_traj), 2)
    y = (rng.random(2 * n_traj) < 1 / (1 + np.exp(-(effect - 0.4)))).astype(np.int64)
    base = attempts.with_columns(pl.Series("y", y), pl.lit(False).alias("evidence"))
    cells = []
    for judge, sharpness in (("sharp", 1.6), ("dull", 0.7)):
        for condition, extra in (("blind", 0.0), ("nonblind", 0.3)):
            z = (sharpness + extra) * y + 0.6 * effect + rng.normal(0, 1.0, len(y))
            p = np.round(1 / (1 + np.exp(-z)), 2)
            cells.append(base.with_columns(pl.lit(judge).alias("judge"), pl.lit(condition).alias("condition"),
                                           pl.Series("p_accept", p)))  # fmt: skip
    return pl.concat(cells), ds.assign_split(attempts, seed=2026)


def test_findings_analytic_intervals_agree_with_the_bootstrap_within_a_tenth_of_their_width(large_panel_corpus):
    # the same comparisons both ways: by default (analytic_from 5,000) every cell is analytic, with analytic_from=None
    # the bootstrap (1,000 resamples). The estimates are the same; each end of the trajectory, problem and
    # never-inspected intervals within 10% of the bootstrap interval's width; the equal-weights interval (problems
    # resampled either way) identical; the p of the two within a factor where they are not tiny
    # (analytic_from 800 here, so that the never-inspected part, about 1,000 of each cell's 10,000, is analytic too;
    # at the default 5,000 only the whole cells are)
    predictions, split = large_panel_corpus
    boot = rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=1000, seed=7, analytic_from=None))
    exact = rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=1000, seed=7, analytic_from=800))
    default = rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=1000, seed=7))
    assert set(default["ci_method"].to_list()) == set(default["problem_ci_method"].to_list()) == {"analytic"}
    assert set(default["never_inspected_ci_method"].to_list()) == {"bootstrap"}
    assert len(boot) == len(exact) == 4 + 2 + 2 + 2  # above chance, judge vs judge, condition vs condition, panel
    for scheme in ("", "problem_", "never_inspected_"):
        assert set(exact[f"{scheme}ci_method"].to_list()) == {"analytic"}
        assert set(boot[f"{scheme}ci_method"].to_list()) == {"bootstrap"}
    assert set(exact["equal_weights_ci_method"].to_list()) == {"bootstrap"}
    key = ["kind", "judge", "condition", "versus"]
    joined = boot.join(exact, on=key, suffix="_a")
    assert len(joined) == len(boot)
    for row in joined.iter_rows(named=True):
        for scheme in ("", "problem_", "never_inspected_", "equal_weights_"):
            assert row[f"{scheme}estimate_a"] == pytest.approx(row[f"{scheme}estimate"], abs=1e-12)
            width = row[f"{scheme}hi"] - row[f"{scheme}lo"]
            for end in ("lo", "hi"):
                gap = abs(row[f"{scheme}{end}_a"] - row[f"{scheme}{end}"])
                assert gap <= (0 if scheme == "equal_weights_" else 0.1) * width, (row["finding"], scheme, end)
        assert row["status_a"] == row["status"] and row["never_inspected_status_a"] == row["never_inspected_status"]
        if row["p_value"] > 0.001:
            assert row["p_value_a"] == pytest.approx(row["p_value"], rel=0.5)


def test_a_small_cell_keeps_its_comparisons_bootstrapped_and_the_rest_draw_no_resample(large_panel_corpus, monkeypatch):
    # "dull" under nonblind answers 600 attempts: every comparison it is a side of (its above-chance row, sharp vs
    # dull under nonblind, its condition change, the nonblind panel) is the bootstrap's, the very rows a bootstrap
    # of everything gives; the others are analytic. With every cell large, no resample is drawn at all
    predictions, split = large_panel_corpus
    small = (pl.col("judge") == "dull") & (pl.col("condition") == "nonblind") & (pl.col("attempt_uid") >= "a09400")
    few = predictions.filter(~((pl.col("judge") == "dull") & (pl.col("condition") == "nonblind")) | small)
    config = rb.RobustnessConfig(resamples=400, seed=7)
    mixed = rb.findings(few, split, config=config)
    boot = rb.findings(few, split, config=rb.RobustnessConfig(resamples=400, seed=7, analytic_from=None))
    touched = (
        ((pl.col("judge") == "dull") & pl.col("condition").str.contains("nonblind"))
        | (pl.col("versus").is_in(["dull"]) & (pl.col("condition") == "nonblind"))
        | ((pl.col("judge") == "dull") & (pl.col("kind") == "condition_vs_condition"))
        | ((pl.col("kind") == "panel_vs_mean_member") & (pl.col("condition") == "nonblind"))
    )
    assert set(mixed.filter(touched)["ci_method"].to_list()) == {"bootstrap"}
    assert set(mixed.filter(~touched)["ci_method"].to_list()) == {"analytic"}
    assert len(mixed.filter(touched)) == 4
    assert mixed.filter(touched).sort("finding").equals(boot.filter(touched).sort("finding"))

    def no_draw(*args, **kwargs):
        raise AssertionError("a resample of the attempts was drawn")

    monkeypatch.setattr(rb, "cluster_weights", no_draw)
    table = rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=400, seed=7, analytic_from=800))
    assert table["p_value"].is_not_null().all()
    for scheme in ("", "problem_", "never_inspected_"):
        assert set(table[f"{scheme}ci_method"].to_list()) == {"analytic"}


def test_an_analytic_p_is_below_alpha_exactly_when_its_interval_excludes_zero(large_panel_corpus):
    predictions, split = large_panel_corpus
    table = rb.findings(predictions, split, config=rb.RobustnessConfig(resamples=200, seed=7))
    assert len(table) and set(table["ci_method"].to_list()) == {"analytic"}
    for row in table.iter_rows(named=True):
        assert (row["p_value"] < rb.ALPHA) == (row["status"] in (rb.HOLDS, rb.REVERSED)), row["finding"]
