"""The report's estimation section (core/report/estimation.py): one block per distinct result, fixed decimals,
coverage beside its Monte Carlo SE, the width/coverage figure per judge, p-values floored at 1e-16."""

import duckdb
import numpy as np
import polars as pl

from cojudge_assets.core.design.bias import bias_diagnostics, bias_frame
from cojudge_assets.core.design.estimation import EstimationConfig, estimate_pass_rates, estimation_frame, labels_saved
from cojudge_assets.core.report.document import render_html, render_markdown
from cojudge_assets.core.report.estimation import estimation_section, fixed
from cojudge_assets.core.report.plots import estimation_title, png_title
from cojudge_tests.core.test_bias import synthetic_predictions
from cojudge_tests.core.test_estimation import correlated_population


def study(tmp_path):
    """Two judges under three conditions: ``same`` ignores the context (identical results), ``reads`` does not."""
    y, p, groups = correlated_population(120, seed=2)
    rng = np.random.default_rng(1)
    parts = []
    for judge in ("same", "reads"):
        for condition in ("blind", "nonblind", "prefix12k"):
            shifted = p if judge == "same" or condition == "blind" else np.clip(p + rng.normal(0, 0.05, len(p)), 0, 1)
            parts.append(
                pl.DataFrame(
                    {
                        "attempt_uid": [f"a{i:04d}" for i in range(len(y))],
                        "judge": judge,
                        "condition": condition,
                        "p_accept": shifted,
                        "y": y.astype(int),
                        "participant": [f"u{g % 30:02d}" for g in groups],
                        "problem_id": [f"q{g // 30}" for g in groups],
                    }
                )
            )
    predictions = pl.concat(parts)
    estimation = estimate_pass_rates(
        estimation_frame(predictions), EstimationConfig(budgets=(25, 50, 200), repetitions=100, bootstrap=20)
    )
    bias_predictions, context = synthetic_predictions(0.5)  # a bias so strong that its p-value underflows
    conn = duckdb.connect(str(tmp_path / "t.duckdb"))
    tables = {
        "estimation": estimation,
        "labels_saved": labels_saved(estimation),
        "bias_diagnostics": bias_diagnostics(bias_frame(bias_predictions, context)),
    }
    for name, table in tables.items():
        conn.register("t", table.to_arrow())
        conn.execute(f"create table {name} as select * from t")
        conn.unregister("t")
    return conn


def test_one_block_per_distinct_result_and_a_figure_per_judge(tmp_path):
    conn = study(tmp_path)
    section = estimation_section(conn, tmp_path / "figures")
    estimates = section.tables[0].frame
    blocks = estimates.select("judge", "conditions").unique()
    same = blocks.filter(pl.col("judge") == "same")["conditions"].to_list()
    assert same == ["blind = nonblind = prefix12k"]  # identical under every condition: one block
    assert sorted(blocks.filter(pl.col("judge") == "reads")["conditions"]) == ["blind", "nonblind", "prefix12k"]
    # 25 and 50 groups x 4 methods, and one "every group labelled" row (200 > 120 groups) per block
    assert len(estimates.filter(pl.col("judge") == "same")) == 9
    every = estimates.filter(pl.col("n") == 120)
    assert len(every) == 4 and set(every["coverage ± MC se"]) == {"–"}
    cells = [str(v) for row in estimates.iter_rows() for v in row]
    assert not any(c.startswith("-0.000") or c == "-0" for c in cells)
    covered = estimates.filter(pl.col("coverage ± MC se") != "–")["coverage ± MC se"]
    assert len(covered) and all(" ± " in c for c in covered)
    titles = {png_title(f.path) for f in section.figures}
    assert {estimation_title("same"), estimation_title("reads")} <= titles
    found = section.tables[2].frame
    assert "< 1e-16" in set(found["p"])
    html = render_html("t", [section], run_config={}, generated_at="now")
    markdown = render_markdown("t", [section], run_config={}, generated_at="now", figure_dir="figures")
    assert "blind = nonblind = prefix12k" in markdown and "0.00700" not in html and ">-0.000<" not in html


def test_fixed_decimals():
    assert [fixed(v) for v in (-0.0004, 0.007, -0.25, None, float("nan"))] == ["0.000", "0.007", "-0.250", "–", "–"]
    assert fixed(59.333, 1) == "59.3" and fixed(-0.04, 1) == "0.0"


def test_the_text_names_every_interval_that_misses_its_level_beyond_monte_carlo_error(tmp_path):
    from cojudge_assets.core.design.estimation import coverage_within_error

    conn = study(tmp_path)
    section = estimation_section(conn, tmp_path / "figures")
    rows = conn.execute(
        """select judge, method, n, min(coverage) as coverage, min(reps) as reps from estimation
           where participant is null and coverage is not null and reps > 0 group by 1, 2, 3"""
    ).pl()
    missed = [r for r in rows.iter_rows(named=True) if not coverage_within_error(r["coverage"], r["reps"], 0.05)]
    kept = [r for r in rows.iter_rows(named=True) if coverage_within_error(r["coverage"], r["reps"], 0.05)]
    assert missed and kept  # the study has both, so the test can fail either way
    for r in missed:
        assert f"{r['judge']} {r['method']} at n = {r['n']}: {r['coverage']:.3f}" in section.intro
    for r in kept:
        assert f"{r['judge']} {r['method']} at n = {r['n']}:" not in section.intro
