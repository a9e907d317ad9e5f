"""estimation, bias_diagnostics and contamination read their predictions one judge x condition at a time (issue
33): from a DuckDB file through the reader an asset gets (core/frames.py ``duckdb_table_reader``), the tables equal
those of the whole frame in memory, row for row, and every read the functions make is of one cell's rows (one
condition's, for the contexts), never of the whole table: the reads are counted. The study is generated: 9 cells of
a few thousand continuous scores, abstentions (NaN and null p) and an attempt no judge answered."""

import duckdb
import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cojudge_assets.core.design import robustness as rb
from cojudge_assets.core.design import split as ds
from cojudge_assets.core.design.bias import bias_diagnostics, bias_frame, bias_table
from cojudge_assets.core.design.estimation import (
    EstimationConfig,
    estimate_cells,
    estimate_pass_rates,
    estimation_frame,
)
from cojudge_assets.core.frames import TableReader, duckdb_table_reader, frames_connection
from cojudge_assets.core.measurement.predictions import read_predictions
from cojudge_tests.core.test_cross_judge_slices import _study

ESTIMATION = EstimationConfig(budgets=(10, 40), repetitions=60, bootstrap=30)
CONTAMINATION = rb.RobustnessConfig(resamples=40, seed=5, analytic_from=185)  # judge-c: under 185 never inspected


class Counted:
    """A reader's reads, recorded: (columns asked, column values asked, distinct, rows returned)."""

    def __init__(self, reader: TableReader):
        self.reads: list[tuple] = []
        self.reader = TableReader(reader.name, reader.columns, reader.scope, self._fetch(reader))

    def _fetch(self, reader: TableReader):
        def fetch(columns, equal, distinct):
            rows = reader._fetch(columns, equal, distinct)
            self.reads.append((tuple(columns or ()), dict(equal), distinct, len(rows)))
            return rows

        return fetch


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> dict:
    frames = _study(3000)
    rng = np.random.default_rng(3)
    with frames_connection(frames) as conn:
        predictions = read_predictions(conn)
    p = predictions["p_accept"].to_numpy().copy()
    p[rng.random(len(p)) < 0.02] = np.nan  # abstentions the answers' status did not catch
    predictions = predictions.with_columns(pl.Series("p_accept", p)).with_columns(
        pl.when(pl.int_range(pl.len()) % 97 == 0).then(None).otherwise(pl.col("p_accept")).alias("p_accept")
    )
    lone = predictions["attempt_uid"][0]  # answered by no judge under no condition: in no fold
    predictions = predictions.with_columns(
        pl.when(pl.col("attempt_uid") == lone).then(None).otherwise(pl.col("p_accept")).alias("p_accept")
    )
    context = frames["participant_context"].with_columns(
        pl.Series("chars", rng.integers(0, 20000, len(frames["participant_context"])))
    )
    split = ds.assign_split(frames["attempts"], seed=2026)
    database = tmp_path_factory.mktemp("cells") / "study.duckdb"
    with duckdb.connect(str(database)) as conn:
        conn.execute("create table main.predictions as select * from predictions")
        conn.execute("create table main.participant_context as select * from context")
    return {"predictions": predictions, "context": context, "split": split, "database": str(database)}


def _reader(study: dict, table: str, columns: list[str]) -> Counted:
    return Counted(duckdb_table_reader(study["database"], f"main.{table}", table, columns, read_only=True))


def _one_cell_at_a_time(counted: Counted, predictions: pl.DataFrame) -> None:
    largest = predictions.group_by("judge", "condition").len()["len"].max()
    rows = [r for r in counted.reads if not r[2]]
    assert rows, "no read of the rows"
    for _, equal, _, returned in rows:
        assert set(equal) == {"judge", "condition"}, equal  # one cell, never the whole table
        assert returned <= largest


def test_estimation_read_cell_by_cell_equals_the_whole_frame(study):
    predictions = study["predictions"]
    counted = _reader(study, "predictions", ["attempt_uid", "judge", "condition", "p_accept", "y", "participant",
                                            "problem_id"])  # fmt: skip
    table = estimate_cells(counted.reader, ESTIMATION)
    assert_frame_equal(table, estimate_pass_rates(estimation_frame(predictions), ESTIMATION))
    assert table.select("judge", "condition").n_unique() == 9
    _one_cell_at_a_time(counted, predictions)
    assert sum(1 for r in counted.reads if not r[2]) == 9  # each cell read once


def test_bias_read_cell_by_cell_equals_the_whole_frame(study):
    predictions, context = study["predictions"], study["context"]
    counted = _reader(study, "predictions", list(predictions.columns))
    contexts = _reader(study, "participant_context", ["attempt_uid", "condition", "chars", "provenance"])
    table = bias_table(counted.reader, contexts.reader)
    whole = bias_diagnostics(bias_frame(predictions, context))
    assert_frame_equal(table, whole)
    assert table.filter(pl.col("covariate") == "context_kchars")["coef"].drop_nulls().len() > 0  # the contexts read
    _one_cell_at_a_time(counted, predictions)
    assert {tuple(r[1]) for r in contexts.reads} == {("condition",)}  # a condition's contexts at a time
    # the attempt no judge answered is in no fold: the frame's rows are the answered ones only
    assert (
        bias_frame(predictions, context)["attempt_uid"].n_unique()
        == predictions.filter(pl.col("p_accept").is_not_nan())["attempt_uid"].n_unique()
    )


def test_contamination_read_cell_by_cell_equals_the_whole_frame(study):
    predictions = study["predictions"]
    counted = _reader(study, "predictions", list(predictions.columns))
    table = rb.contamination(counted.reader, study["split"], CONTAMINATION)
    assert_frame_equal(table, rb.contamination(predictions, study["split"], CONTAMINATION))
    assert set(table["ci_method"]) == {"analytic", "bootstrap"}
    _one_cell_at_a_time(counted, predictions)
    distinct = [r for r in counted.reads if r[2] and "attempt_uid" in r[0]]
    assert [r[3] for r in distinct] == [predictions["attempt_uid"].n_unique()]  # the attempts, found by the store


def test_no_prediction_no_rows(study):
    empty = study["predictions"].head(0)
    assert estimate_cells(empty, ESTIMATION).is_empty()
    assert bias_table(empty, study["context"]).is_empty()
    assert rb.contamination(empty, study["split"], CONTAMINATION).is_empty()
    assert rb.contamination(pl.DataFrame(), study["split"], CONTAMINATION).is_empty()
