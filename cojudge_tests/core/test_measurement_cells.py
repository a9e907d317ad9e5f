"""The per-judge tables computed one judge x condition at a time equal the whole measurement's rows."""

import polars as pl
import pytest

from cojudge_assets.core.measurement.measure import (
    CROSS_TABLES,
    PER_CELL_TABLES,
    UNIVERSE_COLUMNS,
    MeasurementConfig,
    measure,
)
from cojudge_tests.core.test_analytic_intervals import predictions


def outcomes_of(table: pl.DataFrame) -> pl.DataFrame:
    return table.select("judge", "condition", "attempt_uid").with_columns(status=pl.lit("ok"))


@pytest.mark.slow  # the whole measurement and four cells: about a minute on a loaded machine
@pytest.mark.parametrize("analytic_from", [10**9, 0], ids=["bootstrap", "analytic"])
def test_one_cell_at_a_time_gives_the_rows_of_the_whole(analytic_from):
    table = predictions(7, 150, thin={("b", "nonblind"): 300})
    attempts = table.select(UNIVERSE_COLUMNS).unique("attempt_uid")
    config = MeasurementConfig(resamples=80, problem_resamples=40, analytic_from=analytic_from)
    whole = measure(table, config, outcomes_of(table), attempts=attempts)
    assert set(whole) == set(PER_CELL_TABLES + CROSS_TABLES)
    cells = table.select("judge", "condition").unique().sort("judge", "condition").rows()
    assert len(cells) == 4
    for judge, condition in cells:
        mine = table.filter(pl.col("judge") == judge, pl.col("condition") == condition)
        part = measure(mine, config, outcomes_of(mine), attempts=attempts, tables=PER_CELL_TABLES)
        assert set(part) == set(PER_CELL_TABLES)
        for name in PER_CELL_TABLES:
            expected = whole[name].filter(pl.col("judge") == judge, pl.col("condition") == condition)
            assert len(expected) > 0, name
            assert part[name].equals(expected), (name, judge, condition)


def test_a_prediction_outside_the_given_attempts_is_refused():
    table = predictions(8, 30)
    attempts = table.select(UNIVERSE_COLUMNS).unique("attempt_uid").head(10)
    with pytest.raises(ValueError, match="not among the measured attempts"):
        measure(table, MeasurementConfig(resamples=10), attempts=attempts)
    with pytest.raises(ValueError, match="unknown tables"):
        measure(table, MeasurementConfig(resamples=10), tables=("judge_metrics", "nope"))


def test_a_cell_that_answered_nothing_still_has_its_coverage_rows():
    table = predictions(9, 40)
    attempts = table.select(UNIVERSE_COLUMNS).unique("attempt_uid")
    asked = outcomes_of(table.filter(pl.col("judge") == "a", pl.col("condition") == "blind")).with_columns(
        judge=pl.lit("mute"), status=pl.lit("abstained")
    )
    tables = measure(table.clear(), MeasurementConfig(resamples=10), asked, attempts=attempts, tables=PER_CELL_TABLES)
    rows = {r["metric"]: r["value"] for r in tables["judge_metrics"].iter_rows(named=True)}
    assert rows == {"coverage": 0.0, "answered": 0.0, "abstained": float(len(asked))}
    assert all(tables[name].is_empty() for name in PER_CELL_TABLES if name != "judge_metrics")
