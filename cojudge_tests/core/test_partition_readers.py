"""predictions and the per-judge tables read their inputs through readers (issue 33: at 10^6 attempts, inputs held
by the run through the whole step put the per-judge tables over 2 GB): what they read that way is what the frames
gave, row for row and in the same order, and the reads are those of the partition. The study is generated
(core/test_cross_judge_slices.py ``_study``): 9 cells of thousands of continuous scores, abstentions, attempts never
asked; here also an answer that is not ok and a request whose code is not the attempt's (the V4 check's mismatch)."""

import duckdb
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cojudge_assets.core.frames import duckdb_table_reader, frame_reader
from cojudge_assets.core.measurement.predictions import (
    CELL_COLUMNS,
    CELL_READ,
    PREDICTIONS_INPUTS,
    PREDICTIONS_READ,
    PREDICTIONS_SCHEMA,
    REQUESTS_ASKED,
    cell_inputs,
    outcomes_table,
    predictions_of,
    predictions_table,
    universe_of,
)
from cojudge_tests.core.test_cell_readers import Counted
from cojudge_tests.core.test_cross_judge_slices import _study


@pytest.fixture(scope="module")
def study(tmp_path_factory) -> dict:
    frames = _study(3000)
    outputs = frames["judge_outputs"]
    failed = outputs.head(1).with_columns(attempt_uid=pl.lit("s/000007"), status=pl.lit("failed"), p_accept=None)
    frames["judge_outputs"] = pl.concat([outputs, failed])  # judge-a x blind, an attempt never asked
    requests = frames["judge_requests"]
    changed = (pl.col("attempt_uid") == "s/000001") & (pl.col("condition") == "nonblind")
    frames["judge_requests"] = requests.with_columns(
        source_code=pl.when(changed).then(pl.lit("print('not the attempt')")).otherwise(pl.col("source_code"))
    )
    database = tmp_path_factory.mktemp("partitions") / "study.duckdb"
    with duckdb.connect(str(database)) as conn:
        for name, frame in frames.items():
            conn.register("frame", frame)
            conn.execute(f"create table main.{name} as select * from frame")
            conn.unregister("frame")
    return {"frames": frames, "database": str(database)}


def _readers(study: dict, read: dict, scope: dict) -> dict[str, Counted]:
    return {
        name: Counted(
            duckdb_table_reader(study["database"], f"main.{name}", name, read[name], scope.get(name), read_only=True)
        )
        for name in read
    }


def _partition(frames: dict[str, pl.DataFrame], judge: str, condition: str) -> dict[str, pl.DataFrame]:
    """The frames the IO manager loads for a predictions partition: its answers, its condition's requests."""
    return {
        **frames,
        "judge_outputs": frames["judge_outputs"].filter(judge=judge, condition=condition),
        "judge_requests": frames["judge_requests"].filter(condition=condition),
    }


@pytest.mark.parametrize("judge, condition", [("judge-a", "nonblind"), ("judge-b", "blind")])
def test_a_partitions_predictions_read_by_readers_in_chunks_are_the_joined_frames(study, judge, condition):
    frames = _partition(study["frames"], judge, condition)
    scope = {
        "judge_outputs": {"judge": [judge], "condition": [condition]},
        "judge_requests": {"condition": [condition]},
    }
    readers = _readers(study, PREDICTIONS_READ, scope)
    table = predictions_of({name: r.reader for name, r in readers.items()}, rows=700)  # a partition in 4 chunks
    assert len(table) > 2100 and table.n_chunks() > 1
    assert_frame_equal(table, predictions_table({n: f.select(PREDICTIONS_READ[n]) for n, f in frames.items()}))
    assert table["code_matches"].sum() == len(table) - (condition == "nonblind")  # the changed request is caught
    assert [r[1] for r in readers["participant_context"].reads] == [{"condition": "nonblind"}]  # its rows only
    assert [len(r.reads) for r in readers.values()] == [1, 1, 1, 1]  # each input read once


def test_every_answer_read_by_readers_in_chunks_is_the_whole_join_in_order(study):
    """No partition: every judge's answers, chunks that straddle the cells, the order of the whole table."""
    readers = _readers(study, PREDICTIONS_READ, {})
    table = predictions_of({name: r.reader for name, r in readers.items()}, rows=1000)
    whole = predictions_table({n: f.select(PREDICTIONS_READ[n]) for n, f in study["frames"].items()})
    assert_frame_equal(table, whole)
    assert table.select("judge", "condition").n_unique() == 9
    assert "s/000007" not in set(table["attempt_uid"])  # the failed answer is no prediction


def test_no_answer_no_prediction(study):
    readers = _readers(study, PREDICTIONS_READ, {"judge_outputs": {"judge": ["nobody"]}})
    table = predictions_of({name: r.reader for name, r in readers.items()})
    assert table.is_empty() and table.schema == PREDICTIONS_SCHEMA
    assert predictions_of({}).schema == PREDICTIONS_SCHEMA  # no judge_outputs in the Definitions
    assert set(PREDICTIONS_READ) == set(PREDICTIONS_INPUTS)


def test_a_cells_inputs_read_by_readers_are_those_of_the_frames(study):
    frames = study["frames"]
    judge, condition = "judge-a", "blind"
    scope = {"judge_outputs": {"judge": [judge], "condition": [condition]}}
    readers = _readers(study, {**CELL_READ, "judge_requests": REQUESTS_ASKED}, scope)
    cell = cell_inputs(
        readers["judge_outputs"].reader,
        readers["attempts"].reader,
        readers["participant_context"].reader,
        readers["judge_requests"].reader,
        condition,
    )
    mine = {**frames, "judge_outputs": frames["judge_outputs"].filter(judge=judge, condition=condition)}
    mine.pop("judge_requests")
    predictions = predictions_table(mine, with_hash=True).select(CELL_COLUMNS)
    assert_frame_equal(cell.predictions, predictions)
    nonblind = frames["participant_context"].filter(condition="nonblind")
    requests = frame_reader("judge_requests", frames["judge_requests"].select(REQUESTS_ASKED))
    assert_frame_equal(cell.universe, universe_of(requests, frames["attempts"], nonblind))
    asked = frames["judge_requests"].filter(condition=condition).select(REQUESTS_ASKED)
    outcomes = outcomes_table({**mine, "judge_requests": asked})
    assert_frame_equal(cell.outcomes.sort(pl.all()), outcomes.sort(pl.all()))  # a join's rows: in no set order
    assert cell.outcomes["status"].value_counts().height >= 2  # answered, and not: coverage has both
    assert_frame_equal(cell.attempt_uids, frames["attempts"].select("attempt_uid"))
    assert readers["judge_outputs"].reads[0][0] == tuple(CELL_READ["judge_outputs"])  # no request hash, no model
    rows = {tuple(r[1]) for r in readers["judge_requests"].reads if not r[2]}  # not the distinct conditions
    assert rows == {("condition",)}  # a condition at a time
