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
    assert leaky["flagged"] and leaky["difference_lo"] > 0  # full - never-inspected excludes 0: better where seen
    assert leaky["never_inspected"] < leaky["full_corpus"]
    honest = table.filter(pl.col("judge") == "honest")
    assert honest.filter(pl.col("metric") == "roc_auc")["flagged"].to_list() == [False]
    assert honest.filter(pl.col("metric") != "roc_auc")["flagged"].is_null().all()
    # the prevalence of both parts is reported, without a flag
    prevalence = table.filter(pl.col("metric") == "base_rate")
    assert prevalence["flagged"].is_null().all() and prevalence["never_inspected"].is_between(0.1, 0.5).all()
    assert (table["n_never_inspected"] == int((ds.attempt_splits(predictions, split) == "test").sum() / 2)).all()


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
    assert contamination.filter(pl.col("judge") == "honest")["flagged"].to_list() == ["no"]
    sizes = shown["The design split (groups fixed once per corpus; train and validation are inspectable)"]
    assert sizes["split"].to_list() == ["train", "validation", "test"] and sizes["groups"].sum() == 600
