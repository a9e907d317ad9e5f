"""The report's section on using a judge: a pass rate from few labels, the labels needed for equal precision, and
what shifts each judge's errors (tables ``estimation``, ``labels_saved``, ``bias_diagnostics``;
core/design/estimation.py, core/design/bias.py).

The section shows one block per distinct result: a judge that ignores the participant context gives the same
figures under every condition, so its conditions share one block, named "blind = prefix12k = nonblind". Numbers
are printed at a fixed number of decimals (no "-0.000", no "0.00700"), coverage beside its Monte Carlo standard
error; per-participant rows and the full precision stay in DuckDB. One figure per judge: interval width and
coverage against n per method (core/plots.estimation_curves)."""

from __future__ import annotations

from pathlib import Path

import duckdb
import polars as pl

from cojudge_assets.core.design.bias import bias_figure, bias_title, format_p
from cojudge_assets.core.measurement.predictions import has_table
from cojudge_assets.core.report import plots
from cojudge_assets.core.report.document import Figure, Section, Table

TABLES = ("estimation", "labels_saved", "bias_diagnostics")
METHOD_ORDER = {"labels": 0, "judge": 1, "rogan_gladen": 2, "ppi": 3}


def fixed(value: float | None, decimals: int = 3) -> str:
    """A number at a fixed number of decimals, without a negative zero; "–" for none.

    >>> [fixed(v) for v in (-0.0001, 0.007, 0.25, None)], fixed(-7.84, 1)
    (['0.000', '0.007', '0.250', '–'], '-7.8')
    """
    if value is None or value != value:
        return "–"
    text = f"{value:.{decimals}f}"
    return text[1:] if text.startswith("-") and float(text) == 0 else text


def _shown(column: str, decimals: int = 3, alias: str | None = None) -> pl.Expr:
    """A column as :func:`fixed` prints it (nulls as "–")."""
    text = pl.col(column).map_elements(lambda v: fixed(v, decimals), return_dtype=pl.String)
    return text.fill_null("–").alias(alias or column)


def group_conditions(frame: pl.DataFrame, columns: list[str]) -> pl.DataFrame:
    """Rows of one judge x condition collapsed with the other conditions of the judge whose rows are identical
    in ``columns`` (compared as shown): a column ``conditions`` ("blind = nonblind") replaces ``condition``."""
    if frame.is_empty():
        return frame.drop("condition").with_columns(pl.lit(None, dtype=pl.String).alias("conditions"))
    signature = (
        frame.sort([c for c in columns if c in ("method", "n")])
        .group_by("judge", "condition", maintain_order=True)
        .agg(pl.concat_str([pl.col(c).cast(pl.String).fill_null("∅") for c in columns], separator="|").alias("row"))
        .with_columns(pl.col("row").list.join("\n").alias("signature"))
    )
    shared = signature.group_by("judge", "signature").agg(
        pl.col("condition").sort().str.join(" = ").alias("conditions"),
        pl.col("condition").sort().first().alias("first"),
    )
    keep = shared.select("judge", pl.col("first").alias("condition"), "conditions")
    return frame.join(keep, on=["judge", "condition"], how="inner").drop("condition")


def _estimates(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    rows = conn.execute("select * from estimation where participant is null").pl()
    shown = rows.select(
        "judge",
        "condition",
        "method",
        "n",
        _shown("labels", 0, "attempts"),
        *(_shown(c) for c in ("estimate", "bias", "rmse")),
        pl.struct("coverage", "coverage_se")
        .map_elements(
            lambda r: "–" if r["coverage"] is None else f"{fixed(r['coverage'])} ± {fixed(r['coverage_se'])}",
            return_dtype=pl.String,
        )
        .alias("coverage ± MC se"),
        _shown("width"),
        pl.struct("reps", "undefined", "no_interval", "boot_undefined")
        .map_elements(_repetitions, return_dtype=pl.String)
        .alias("repetitions"),
        pl.when(pl.col("method") == "judge").then(pl.lit("")).otherwise(pl.col("note").fill_null("")).alias("note"),
        pl.col("method").replace_strict(METHOD_ORDER, default=9).alias("order"),
        # the figure's inputs, unrounded
        pl.col("coverage").alias("_coverage"),
        pl.col("coverage_se").alias("_coverage_se"),
        pl.col("width").alias("_width"),
    )
    compared = ["method", "n", "attempts", "estimate", "bias", "rmse", "coverage ± MC se", "width", "repetitions"]
    return group_conditions(shown, compared).sort("judge", "conditions", "n", "order")


def _repetitions(r: dict) -> str:
    """The repetitions with an interval ("1000"), and those without: "973; 27 undefined; 12% of bootstrap
    replicates undefined"."""
    parts = [str(r["reps"])] if r["reps"] else []
    if r["no_interval"]:
        parts.append(f"{r['no_interval']} without (< 10 groups)")
    if r["undefined"]:
        parts.append(f"{r['undefined']} undefined")
    if r["boot_undefined"]:
        share = r["boot_undefined"]
        parts.append(f"{share:.1%}" if share >= 0.001 else "< 0.1%")
        parts[-1] += " of bootstrap replicates undefined"
    return "; ".join(parts) if parts else "–"


def _labels_needed(conn: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    rows = conn.execute("select * from labels_saved").pl()
    shown = rows.select(
        "judge",
        "condition",
        "method",
        "n",
        _shown("labels", 0, "attempts"),
        _shown("coverage"),
        _shown("groups_needed", 1, "groups needed"),
        _shown("attempts_needed", 0, "attempts needed"),
        _shown("labels_saved", 1, "groups saved"),
        _shown("attempts_saved", 0, "attempts saved"),
        pl.col("note").fill_null(""),
        pl.col("method").replace_strict(METHOD_ORDER, default=9).alias("order"),
    )
    compared = ["method", "n", "attempts", "coverage", "groups needed", "attempts needed", "groups saved", "note"]
    table = group_conditions(shown, compared).sort("judge", "conditions", "order", "n").drop("order")
    return table.select("judge", "conditions", pl.exclude("judge", "conditions"))


def _short_of_nominal(conn: duckdb.DuckDBPyConnection, alpha: float = 0.05) -> str:
    """A sentence naming every overall interval whose coverage misses 95% by more than Monte Carlo error
    (``coverage_within_error``: two standard errors at the nominal level), so the table's shortfalls are said, not
    left to be found; empty when every one is within error."""
    from cojudge_assets.core.design.estimation import coverage_within_error

    rows = conn.execute(
        """select judge, method, n, min(coverage) as coverage, min(reps) as reps from estimation
           where participant is null and coverage is not null and reps > 0
           group by judge, method, n order by judge, method, n"""
    ).pl()
    missed = [r for r in rows.iter_rows(named=True) if not coverage_within_error(r["coverage"], r["reps"], alpha)]
    if not missed:
        return ""
    listed = "; ".join(f"{r['judge']} {r['method']} at n = {r['n']}: {r['coverage']:.3f}" for r in missed)
    return (
        f"Coverage outside Monte Carlo error of {1 - alpha:.0%} (two standard errors), lowest over conditions: "
        f"{listed}. These intervals do not keep their level at that n; a skewed pass rate over few groups, "
        "where a few trajectories hold many attempts, is the usual cause (docs/methodology.md).\n\n"
    )


def estimation_section(conn: duckdb.DuckDBPyConnection, folder: Path) -> Section | None:
    """None when the estimation group's tables are absent."""
    if not all(has_table(conn, name) for name in TABLES):
        return None
    estimates = _estimates(conn)
    needed = _labels_needed(conn)
    per_participant = conn.execute(
        """select count(*) as rows, count(coverage) as with_interval,
                  count(*) filter (where groups < 10) as few from estimation where participant is not null"""
    ).fetchone()
    bias = conn.execute("select * from bias_diagnostics").pl()
    found = conn.execute(
        """select judge, condition, error, term, coef, se, p, p_adjusted, n, groups
           from bias_diagnostics where p_adjusted < 0.05 order by judge, condition, error, p_adjusted"""
    ).pl()
    found = found.select(
        "judge",
        "condition",
        "error",
        "term",
        *(_shown(c) for c in ("coef", "se")),
        *(pl.col(c).map_elements(format_p, return_dtype=pl.String).alias(c) for c in ("p", "p_adjusted")),
        "n",
        "groups",
    )
    found = group_conditions(found, ["error", "term", "coef", "se", "p", "p_adjusted", "n", "groups"])
    found = found.select("judge", "conditions", pl.exclude("judge", "conditions"))
    notes = conn.execute(
        """select covariate, note, count(*) as cells from bias_diagnostics where note is not null
           group by 1, 2 order by 1, 2"""
    ).pl()
    figures = []
    for judge in sorted(set(estimates["judge"].to_list())):
        rows = estimates.filter(pl.col("judge") == judge).select(
            "method", "n", "conditions", width="_width", coverage="_coverage", coverage_se="_coverage_se"
        )
        if rows["coverage"].is_not_null().any():
            path = plots.estimation_curves(
                rows, plots.figure_file(folder, "estimation", judge), plots.estimation_title(judge)
            )
            figures.append(
                Figure(
                    path,
                    plots.estimation_title(judge),
                    "Left: narrower is more precise. Right: a method whose band leaves the dashed 95% line does not "
                    "keep its promise at that n; only methods that keep it are credited with labels saved.",
                )
            )
    for judge in sorted(set(bias["judge"].to_list())):
        drawn = bias_figure(bias, judge, plots.figure_file(folder, "bias", judge))
        if drawn is not None:
            figures.append(
                Figure(
                    drawn,
                    bias_title(judge),
                    "A marker right of 0: the judge is more lenient on that term (per doubling of length, per "
                    "turn, or against the reference level); filled: Holm-adjusted p < 0.05.",
                )
            )
    short = _short_of_nominal(conn)
    rows_pp, with_interval, few = per_participant if per_participant else (0, 0, 0)
    participants = (
        f"Per participant ({rows_pp} rows, in DuckDB's estimation table): {few} rest on fewer than 10 labelled "
        f"groups on average, and {with_interval} have an interval."
        if rows_pp
        else ""
    )
    return Section(
        "Using a judge: pass rates from few labels, and its biases",
        "If n groups (trajectories; attempts = the attempts they hold) are labelled and the judge scores the rest, "
        "the pass rate can be estimated from the labels alone (cluster-robust t interval), from the judge alone at "
        "a threshold chosen on the labelled sample (no interval: its rate on every attempt has no sampling error; its "
        "error is its bias), by the Rogan-Gladen "
        "correction (bootstrap interval) or by prediction-powered inference (PPI++, its design-based t interval). "
        "Every interval carries the finite-population correction 1 - n/G, none is given below 10 labelled groups, "
        "and a budget that labels every group is reported once, as such. Each figure is over many repeated samples; "
        "coverage is printed with its Monte Carlo standard error; repetitions counts those with an interval, and "
        "those where the method was undefined. Conditions with identical results share a block "
        f"(blind = nonblind). {participants}\n\n{short}"
        "Labels needed for equal precision: the groups a judge-assisted method needs for the mean squared error "
        "labels alone achieve with n groups (from the estimates' spread across repetitions), shown only where the "
        "method's coverage is within Monte Carlo error of 95%.\n\n"
        "Then each judge's errors regressed on the corpus's covariates (cluster-robust by trajectory, t on "
        "trajectories - 1 degrees of freedom, Holm). p - y mixes the judge's error with whatever predicts y: a "
        "covariate that predicts the verdict shifts p - y even for a judge that ignores it.",
        (
            Table(
                "Pass-rate estimates over repeated samples (every attempt; one block per distinct result)",
                estimates.select(
                    "judge",
                    "conditions",
                    "method",
                    "n",
                    "attempts",
                    "estimate",
                    "bias",
                    "rmse",
                    "coverage ± MC se",
                    "width",
                    "repetitions",
                    "note",
                ),
                max_rows=120,
            ),
            Table(
                "Labels needed for equal precision with labels alone at n (groups and attempts)", needed, max_rows=80
            ),
            Table("Covariate terms that shift a judge's errors (Holm-adjusted p < 0.05)", found, max_rows=60),
            Table("Covariates not tested, and why", notes),
        ),
        tuple(figures),
    )
