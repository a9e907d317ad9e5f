"""A partition's frame goes into its DuckDB table a slice at a time, in one transaction (defs/io.py
``_insert_in_slices``): the rows and their order are the frame's, a table is made from the frame's schema, and an
insert that fails at a later slice leaves none of the frame's rows."""

import dagster as dg
import duckdb
import polars as pl
import pytest

from cojudge_assets.defs.io import CojudgeDuckDBIOManager, _insert_in_slices

FRAME = pl.DataFrame(
    {"attempt_uid": [f"u{i:02d}" for i in range(10)], "request_json": [f'{{"code": "{i}"}}' for i in range(10)]}
)


@pytest.mark.parametrize("rows", [1, 3, 10, 100])
def test_the_slices_insert_the_frame_in_its_order(tmp_path, rows):
    with duckdb.connect(str(tmp_path / "t.duckdb")) as conn:
        _insert_in_slices(conn, "main.requests", FRAME, rows=rows)
        _insert_in_slices(conn, "main.requests", FRAME.head(2), rows=rows)  # an existing table: appended
        stored = conn.execute("select * from main.requests").pl()
    assert stored.equals(pl.concat([FRAME, FRAME.head(2)]))


def test_a_failed_slice_leaves_none_of_the_frame(tmp_path):
    with duckdb.connect(str(tmp_path / "t.duckdb")) as conn:
        conn.execute(
            "create table main.requests (attempt_uid varchar, request_json varchar check (request_json <> 'x'))"
        )
        bad = FRAME.with_columns(
            pl.when(pl.int_range(pl.len()) == 7).then(pl.lit("x")).otherwise("request_json").alias("request_json")
        )
        with pytest.raises(duckdb.ConstraintException):
            _insert_in_slices(conn, "main.requests", bad, rows=3)  # slices 0-2, 3-5 in; 6-8 fails
        assert conn.execute("select count(*) from main.requests").fetchone() == (0,)


PARTS = dg.StaticPartitionsDefinition(["blind", "nonblind"])


@dg.asset(partitions_def=PARTS, metadata={"partition_expr": "condition"})
def requests(context: dg.AssetExecutionContext) -> pl.DataFrame:
    return FRAME.with_columns(condition=pl.lit(context.partition_key))


def test_a_partition_written_again_replaces_its_rows_only(tmp_path):
    io_manager = CojudgeDuckDBIOManager(database=str(tmp_path / "t.duckdb"))  # schema public
    for key in ("blind", "nonblind", "blind"):
        result = dg.materialize([requests], partition_key=key, resources={"io_manager": io_manager})
        assert result.success
        metadata = result.asset_materializations_for_node("requests")[0].metadata
        assert metadata["row_count"].value == len(FRAME)
    with duckdb.connect(str(tmp_path / "t.duckdb")) as conn:
        counts = conn.execute("select condition, count(*) from public.requests group by 1 order by 1").fetchall()
    assert counts == [("blind", 10), ("nonblind", 10)]
