"""Group ``estimation``: the judges used, not only scored (issue 18): a pass rate from few labels and the judge
(core/design/estimation.py), and what shifts each judge's errors (core/design/bias.py)."""

from pathlib import Path

import dagster as dg
import polars as pl
from dagster_duckdb import DuckDBResource

from cojudge_assets.core.constants import SEED
from cojudge_assets.core.design.bias import CONTEXT_COLUMNS, bias_figure, bias_table
from cojudge_assets.core.design.estimation import PREDICTION_COLUMNS, EstimationConfig, estimate_cells
from cojudge_assets.core.design.estimation import labels_saved as saved_labels
from cojudge_assets.core.frames import TableReader
from cojudge_assets.core.measurement.predictions import scored
from cojudge_assets.core.report import plots
from cojudge_assets.core.tables import markdown_table
from cojudge_assets.defs.io import KINDS
from cojudge_assets.defs.resources import output_dir


class EstimationSettings(dg.Config):
    budgets: list[int] = [25, 50, 100, 200]  # label budgets, in trajectory (or problem) groups
    repetitions: int = 1000  # coverage's Monte Carlo standard error about 0.007 at 95%
    bootstrap: int = 200  # Rogan-Gladen bootstrap resamples per repetition
    alpha: float = 0.05
    min_groups: int = 10  # fewer labelled groups than this: no interval
    seed: int = SEED
    grouping: str = "trajectory"  # or "attempt": labels drawn attempt by attempt (core/estimation.estimation_frame)


class BiasSettings(dg.Config):
    folds: int = 10  # measurement's folds, for the out-of-fold decisions
    seed: int = SEED
    adjust: str = "holm"  # statsmodels multipletests method


def _folder(duckdb: DuckDBResource) -> Path:
    return output_dir(duckdb) / "estimation"


@dg.asset(
    group_name="estimation",
    kinds=KINDS,
    code_version="3",
    # read a judge x condition at a time (core/frames.py TableReader): one cell's predictions in memory (issue 33)
    ins={
        "predictions": dg.AssetIn(
            "predictions", metadata={"columns": list(PREDICTION_COLUMNS)}, dagster_type=TableReader
        )
    },
    description="One row per judge x condition x participant (null: every attempt) x method (labels, judge, "
    "rogan_gladen, ppi) x label budget n < G (groups; a budget reaching G: one 'every group labelled' row): truth "
    "(full-label pass rate), mean estimate, bias, sd, RMSE, empirical coverage of the interval with its Monte Carlo "
    "se, mean width; repetitions with an interval, without one (< min_groups labelled groups), undefined, and "
    "Rogan-Gladen's share of undefined bootstrap replicates. Intervals carry the finite-population correction.",
)
def estimation(
    context: dg.AssetExecutionContext,
    config: EstimationSettings,
    predictions: TableReader,
) -> pl.DataFrame:
    settings = EstimationConfig(
        budgets=tuple(config.budgets),
        repetitions=config.repetitions,
        bootstrap=config.bootstrap,
        alpha=config.alpha,
        min_groups=config.min_groups,
        seed=config.seed,
    )
    table = estimate_cells(predictions, settings, grouping=config.grouping)
    overall = table.filter(pl.col("participant").is_null())
    context.add_output_metadata(
        {
            "rows": len(table),
            "cells": overall.select("judge", "condition").n_unique(),
            "overall": dg.MetadataValue.md(
                markdown_table(
                    overall.select("judge", "condition", "method", "n", "bias", "coverage", "coverage_se", "width")
                )
            ),
        }
    )
    return table


@dg.asset(
    group_name="estimation",
    kinds=KINDS,
    code_version="3",
    description="One row per judge x condition x judge-assisted method x label budget n: labels needed for equal "
    "precision, from the achieved MSE across repetitions: the groups (and attempts) the method needs to match "
    "labels alone's MSE at n, and the labels saved (n - groups needed); shown only where the method's coverage "
    "is within Monte Carlo error of nominal.",
)
def labels_saved(context: dg.AssetExecutionContext, config: EstimationSettings, estimation: pl.DataFrame):
    table = saved_labels(estimation, alpha=config.alpha)
    context.add_output_metadata({"rows": len(table), "table": dg.MetadataValue.md(markdown_table(table))})
    return table


@dg.asset(
    group_name="estimation",
    kinds=KINDS,
    code_version="2",
    ins={
        "predictions": dg.AssetIn(
            "predictions",
            metadata=scored("language", "verdict", "code_lines", "code_tokens"),
            dagster_type=TableReader,
        ),
        "participant_context": dg.AssetIn(
            "participant_context", metadata={"columns": list(CONTEXT_COLUMNS)}, dagster_type=TableReader
        ),
    },
    description="One row per judge x condition x error (p_minus_y, oof_wrong) x covariate term: OLS coef, "
    "cluster-robust (trajectory) se, p (t on groups - 1 df), Holm-adjusted p, n, groups; a note row per "
    "covariate the corpus lacks or that is constant. One figure per judge.",
)
def bias_diagnostics(
    context: dg.AssetExecutionContext,
    config: BiasSettings,
    predictions: TableReader,
    participant_context: TableReader,
    duckdb: DuckDBResource,
) -> pl.DataFrame:
    folder = _folder(duckdb)
    plots.remove_figures(folder, "bias")
    table = bias_table(predictions, participant_context, folds=config.folds, seed=config.seed, method=config.adjust)
    figures = {}
    for judge in sorted(set(table["judge"].to_list())):
        path = bias_figure(table, judge, plots.figure_file(folder, "bias", judge))
        if path is not None:
            figures[f"plot_{judge}"] = dg.MetadataValue.path(str(path))
    found = table.filter(pl.col("p_adjusted") < 0.05)
    context.add_output_metadata(
        {
            "rows": len(table),
            "significant": dg.MetadataValue.md(
                markdown_table(found.select("judge", "condition", "error", "term", "coef", "p_adjusted").head(40))
            )
            if len(found)
            else "none",
            **figures,
        }
    )
    return table
