"""The report's section on using a judge: a pass rate from few labels, labels saved, and what shifts each judge's
errors (tables ``estimation``, ``labels_saved``, ``bias_diagnostics``; core/design/estimation.py,
core/design/bias.py)."""

from __future__ import annotations

from pathlib import Path

import duckdb

from cojudge_assets.core.design.bias import bias_figure, bias_title
from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.core.report.document import Figure, Section, Table

TABLES = ("estimation", "labels_saved", "bias_diagnostics")


def estimation_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    """None when the estimation group's tables are absent."""
    if not all(has_table(conn, name) for name in TABLES):
        return None
    saved = conn.execute(
        """select judge, condition, method, n, round(labels, 1) as labels, round(width_labels, 3) as width_labels,
                  round(width, 3) as width, round(coverage, 3) as coverage, round(n_eff, 1) as n_eff,
                  round(labels_saved, 1) as labels_saved, first_n_at_k
           from labels_saved order by judge, condition, method, n"""
    ).pl()
    k = conn.execute("select max(k) from labels_saved").fetchall()[0][0]
    overall = conn.execute(
        """select judge, condition, method, n, round(truth, 3) as truth, round(estimate, 3) as estimate,
                  round(bias, 3) as bias, round(rmse, 3) as rmse, round(coverage, 3) as coverage,
                  round(width, 3) as width, reps
           from estimation where participant is null and method <> 'judge'
           order by judge, condition, method, n"""
    ).pl()
    judge_alone = conn.execute(
        """select distinct judge, condition, round(truth, 3) as truth, round(estimate, 3) as judge_alone,
                  round(bias, 3) as bias, round(coverage, 3) as coverage
           from estimation where participant is null and method = 'judge' order by judge, condition"""
    ).pl()
    bias = conn.execute("select * from bias_diagnostics").pl()
    found = conn.execute(
        """select judge, condition, error, term, round(coef, 3) as coef, round(se, 3) as se, p_adjusted, n, groups
           from bias_diagnostics where p_adjusted < 0.05 order by judge, condition, error, p_adjusted"""
    ).pl()
    notes = conn.execute(
        """select covariate, note, count(*) as cells from bias_diagnostics where note is not null
           group by 1, 2 order by 1, 2"""
    ).pl()
    figures = []
    for judge in sorted(set(bias["judge"].to_list())):
        path = bias_figure(bias, judge, Path(folder) / f"bias_{judge}.png")
        if path is not None:
            figures.append(
                Figure(
                    path,
                    bias_title(judge),
                    "A marker right of 0: the judge is more lenient on that term (per doubling of length, per "
                    "turn, or against the reference level); filled: Holm-adjusted p < 0.05.",
                )
            )
    return Section(
        "Using a judge: pass rates from few labels, and its biases",
        "If n trajectories are labelled (n counted in trajectory groups; labels = attempts labelled) and the judge "
        "scores the rest, the pass rate can be estimated from the labels alone (cluster-robust t interval), from "
        "the judge alone at its out-of-fold threshold, by the Rogan-Gladen correction (bootstrap interval) or by "
        "prediction-powered inference (PPI++). Over repeated samples: bias against the full-label pass rate, "
        "coverage of the 95% interval and its width. Labels saved: n_eff = n (width_labels / width)^2 - n. "
        "Then each judge's errors regressed on the corpus's covariates (cluster-robust by trajectory, Holm).",
        (
            Table(
                "Labels saved by the judge-assisted estimators (n_eff: labels alone's equivalent budget; "
                f"first_n_at_k: the first n where n_eff >= {k if k is not None else 2:g} n)",
                saved,
                max_rows=100,
            ),
            Table("Pass-rate estimates over repeated samples (every attempt)", overall, max_rows=120),
            Table("The judge alone at its out-of-fold threshold (no label)", judge_alone),
            Table("Covariate terms that shift a judge's errors (Holm-adjusted p < 0.05)", found, max_rows=60),
            Table("Covariates not tested, and why", notes),
        ),
        tuple(figures),
    )
