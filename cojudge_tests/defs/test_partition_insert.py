"""A partition's frame goes into its DuckDB table a slice at a time (core/frames.py ``insert_in_slices``), in the
transaction that deletes the partition's old rows (``PolarsTableHandler.handle_output``): the rows and their order
are the frame's, a table is made from the frame's schema, and a write that fails or is killed at a later slice
leaves the partition's old rows as they were."""

import os
import signal
import subprocess
import sys
import textwrap

import dagster as dg
import duckdb
import polars as pl
import pytest

from cojudge_assets.core.frames import INSERT_ROWS, insert_in_slices
from cojudge_assets.defs.io import CojudgeDuckDBIOManager, dagster_config

FRAME = pl.DataFrame(
    {"attempt_uid": [f"u{i:02d}" for i in range(10)], "request_json": [f'{{"code": "{i}"}}' for i in range(10)]}
)


@pytest.mark.parametrize("rows", [1, 3, 10, 100])
def test_the_slices_insert_the_frame_in_its_order(tmp_path, rows):
    with duckdb.connect(str(tmp_path / "t.duckdb")) as conn:
        insert_in_slices(conn, "main.requests", FRAME, rows=rows)
        insert_in_slices(conn, "main.requests", FRAME.head(2), rows=rows)  # an existing table: appended
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
        conn.execute("begin transaction")  # the handler's
        with pytest.raises(duckdb.ConstraintException):
            insert_in_slices(conn, "main.requests", bad, rows=3)  # slices 0-2, 3-5 in; 6-8 fails
        conn.execute("rollback")
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


def _stored(database) -> list[tuple]:
    # with dagster-duckdb's configuration: a failed write's connection is left open to the garbage collector
    with duckdb.connect(str(database), config=dagster_config()) as conn:
        return conn.execute("select condition, attempt_uid, request_json from public.requests order by all").fetchall()


def test_the_slices_insert_named_columns_into_a_wider_table(tmp_path):
    """As an imported judge's answers go into the judge cache (judges/store.py): by name, the table's other columns
    null, whatever order the table holds its columns in."""
    with duckdb.connect(str(tmp_path / "t.duckdb")) as conn:
        conn.execute("create table main.cache (extra INTEGER, request_json VARCHAR, attempt_uid VARCHAR primary key)")
        insert_in_slices(conn, "main.cache", FRAME, rows=4, columns=["attempt_uid", "request_json"])
        stored = conn.execute("select * from main.cache").pl()
    assert stored["extra"].null_count() == 10
    assert stored.select(FRAME.columns).sort("attempt_uid").equals(FRAME)


def test_a_rewrite_that_fails_after_its_first_slice_keeps_the_partition_s_old_rows(tmp_path, monkeypatch):
    from cojudge_assets.defs import io

    database = tmp_path / "t.duckdb"
    io_manager = CojudgeDuckDBIOManager(database=str(database))
    for key in ("blind", "nonblind"):
        assert dg.materialize([requests], partition_key=key, resources={"io_manager": io_manager}).success
    before = _stored(database)
    assert len(before) == 20

    def first_slice_then_fail(connection, target, obj, rows=INSERT_ROWS):
        head = obj.head(3).to_arrow()  # noqa: F841  (read by name by DuckDB's replacement scan)
        connection.execute(f"insert into {target} select * from head")
        raise RuntimeError("the write fails after its first slice")

    monkeypatch.setattr(io, "insert_in_slices", first_slice_then_fail)
    failed = dg.materialize(
        [requests], partition_key="blind", resources={"io_manager": io_manager}, raise_on_error=False
    )
    assert not failed.success
    assert _stored(database) == before  # the delete went back with the write: blind's 10 rows, nonblind's 10


KILLED = textwrap.dedent(
    """
    import os
    import signal
    import sys

    import dagster as dg
    from cojudge_assets.defs import io
    from cojudge_tests.defs.test_partition_insert import requests

    def first_slice_then_killed(connection, target, obj, rows=None):
        head = obj.head(3).to_arrow()
        connection.execute(f"insert into {target} select * from head")
        os.kill(os.getpid(), signal.SIGKILL)

    io.insert_in_slices = first_slice_then_killed
    io_manager = io.CojudgeDuckDBIOManager(database=sys.argv[1])
    dg.materialize([requests], partition_key="blind", resources={"io_manager": io_manager})
    """
)


def test_a_rewrite_killed_after_its_first_slice_keeps_the_partition_s_old_rows(tmp_path):
    database = tmp_path / "t.duckdb"
    io_manager = CojudgeDuckDBIOManager(database=str(database))
    for key in ("blind", "nonblind"):
        assert dg.materialize([requests], partition_key=key, resources={"io_manager": io_manager}).success
    before = _stored(database)
    killed = subprocess.run([sys.executable, "-c", KILLED, str(database)], capture_output=True, text=True, timeout=300)
    assert killed.returncode == -signal.SIGKILL, killed.stderr[-2000:]
    assert os.path.exists(database)
    assert _stored(database) == before  # DuckDB rolls the uncommitted delete and slice back on the next open
