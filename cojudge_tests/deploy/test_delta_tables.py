"""The deployed profile's Delta tables (defs/deployed.py): the concurrent first writers' trap, and the reader of
several partitions.

dagster-deltalake-polars writes the first partition of a table that does not exist yet as a whole-table
overwrite; several runs doing so at once remove each other's files, and every run still reports success. The IO
manager of the deployed profile creates the table first. Here several processes (as runs are) write different
partitions of one missing table at the same instant, through the IO manager, and every partition's rows land.

Two first writers can also both create the table (delta-rs commits the second create as version 1); a writer that
read version 0 then loses its commit on "Metadata changed since last commit" unless the write is retried. That race
is rare per round, so a pool of eight writers plants it round after round on new tables."""

import multiprocessing
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import polars as pl
import pyarrow as pa
import pytest
from deltalake import DeltaTable

from cojudge_assets.defs.deployed import tables_io_manager, write_partition

pytestmark = [pytest.mark.timeout(600)]

JUDGES = ("a", "b")
CONDITIONS = ("blind", "nonblind")
ROWS = 50

PARTITIONS = dg.MultiPartitionsDefinition(
    {"condition": dg.StaticPartitionsDefinition(list(CONDITIONS)), "judge": dg.StaticPartitionsDefinition(list(JUDGES))}
)


@dg.asset(partitions_def=PARTITIONS, metadata={"partition_expr": {"condition": "condition", "judge": "judge"}})
def answers(context: dg.AssetExecutionContext) -> pl.DataFrame:
    key = context.partition_key.keys_by_dimension  # type: ignore[attr-defined]
    return pl.DataFrame(
        {"attempt_uid": [f"u{i}" for i in range(ROWS)], "condition": key["condition"], "judge": key["judge"]}
    )


@dg.asset(metadata={})
def summary(answers: pl.DataFrame) -> pl.DataFrame:
    return answers.group_by("condition", "judge").len().sort("condition", "judge")


# one run of one partition, started when the go-file appears (every writer at the same instant)
WRITER = """
import sys, time
from pathlib import Path
import dagster as dg
from cojudge_assets.defs.deployed import tables_io_manager
from cojudge_tests.deploy.test_delta_tables import answers
root, partition, go = sys.argv[1], sys.argv[2], Path(sys.argv[3])
while not go.exists():
    time.sleep(0.005)
result = dg.materialize([answers], partition_key=partition, resources={"io_manager": tables_io_manager(root)})
print("ok" if result.success else "failed", flush=True)
"""


@pytest.mark.slow  # eight processes importing Dagster
def test_concurrent_first_writers_of_a_missing_partitioned_table_lose_no_partition(tmp_path):
    root = tmp_path / "tables"
    keys = [f"{c}|{j}" for c in CONDITIONS for j in JUDGES]
    for attempt in range(2):  # two rounds: the race is planted afresh on a new table each time
        go = tmp_path / f"go{attempt}"
        table_root = root / str(attempt)
        writers = [
            subprocess.Popen(
                [sys.executable, "-c", WRITER, str(table_root), key, str(go)],
                stdout=subprocess.PIPE,
                stderr=subprocess.PIPE,
                text=True,
            )
            for key in keys
        ]
        time.sleep(8)  # every writer has imported Dagster and waits on the go-file
        go.touch()
        outcomes = [w.communicate(timeout=300) for w in writers]
        assert all(out.strip() == "ok" for out, _ in outcomes), [err[-2000:] for _, err in outcomes]
        table = pl.from_arrow(DeltaTable(str(table_root / "main" / "answers")).to_pyarrow_table())
        assert isinstance(table, pl.DataFrame)
        counts = dict(
            table.group_by("condition", "judge").len().select(pl.format("{}|{}", "condition", "judge"), "len").rows()
        )
        assert counts == dict.fromkeys(keys, ROWS), counts


def test_an_unpartitioned_reader_gets_every_partition_and_a_missing_table_is_named(tmp_path):
    io_manager = tables_io_manager(str(tmp_path / "tables"))
    missing = dg.materialize(
        [answers.to_source_asset(), summary], resources={"io_manager": io_manager}, raise_on_error=False
    )
    assert not missing.success
    failure = next(e for e in missing.all_events if e.is_step_failure)
    assert "answers was never written" in str(failure.step_failure_data.error), failure
    for key in PARTITIONS.get_partition_keys():
        assert dg.materialize([answers], partition_key=key, resources={"io_manager": io_manager}).success
    # the reader of several partitions: the library's own predicate refuses array values; here it is an isin
    result = dg.materialize([answers.to_source_asset(), summary], resources={"io_manager": io_manager})
    table = result.output_for_node("summary")
    assert table["len"].to_list() == [ROWS] * 4
    # a partition written again replaces its rows only
    assert dg.materialize([answers], partition_key="blind|a", resources={"io_manager": io_manager}).success
    again = dg.materialize([answers.to_source_asset(), summary], resources={"io_manager": io_manager})
    assert again.output_for_node("summary")["len"].to_list() == [ROWS] * 4


@dg.asset(
    partitions_def=PARTITIONS,
    metadata={"partition_expr": {"condition": "condition", "judge": "judge"}},
    ins={"answers": dg.AssetIn("answers", metadata={"columns": ["attempt_uid", "judge"]})},
)
def measured(context: dg.AssetExecutionContext, answers: pl.DataFrame) -> pl.DataFrame:
    """A reader partitioned like its input (as predictions and the per-judge measurement are): what it was given."""
    context.add_output_metadata({"rows_read": len(answers), "columns_read": ",".join(answers.columns)})
    key = context.partition_key.keys_by_dimension  # type: ignore[attr-defined]
    judges = ",".join(sorted(set(answers["judge"].to_list())))
    return pl.DataFrame({"condition": [key["condition"]], "judge": [key["judge"]], "judges_read": [judges]})


def test_a_partition_reader_moves_only_its_partition_and_its_columns(tmp_path):
    """Under the deployed profile a measurement partition's input is its own partition of the answers (the Delta
    table filtered on both dimensions), with only the columns it declares: rows read, counted."""
    io_manager = tables_io_manager(str(tmp_path / "tables"))
    for key in PARTITIONS.get_partition_keys():
        assert dg.materialize([answers], partition_key=key, resources={"io_manager": io_manager}).success
    table = DeltaTable(str(tmp_path / "tables" / "main" / "answers")).to_pyarrow_table()
    assert table.num_rows == ROWS * 4  # the store holds every partition
    result = dg.materialize(
        [answers.to_source_asset(), measured], partition_key="nonblind|b", resources={"io_manager": io_manager}
    )
    metadata = result.asset_materializations_for_node("measured")[0].metadata
    assert metadata["rows_read"].value == ROWS  # one partition of four
    assert metadata["columns_read"].value == "attempt_uid,judge"
    assert result.output_for_node("measured")["judges_read"].to_list() == ["b"]


def _write_when_told(uri: str, condition: str, judge: str, go: str) -> str:
    """One writer of the pool: waits for the go-file, then writes its partition; returns "ok" or the error."""
    while not Path(go).exists():
        time.sleep(0.001)
    rows = pa.table(
        {"attempt_uid": [f"u{i}" for i in range(ROWS)], "condition": [condition] * ROWS, "judge": [judge] * ROWS}
    )
    try:
        write_partition(uri, rows, {"condition": condition, "judge": judge})
    except Exception as exc:  # noqa: BLE001 - reported to the test, which names it
        return repr(exc)
    return "ok"


@pytest.mark.slow  # a pool of eight processes, twelve rounds
def test_two_creators_of_one_missing_table_lose_no_writer(tmp_path):
    cells = [(c, j) for c in ("c0", "c1") for j in ("j0", "j1", "j2", "j3")]
    created_twice = 0
    # forkserver: a fork of a process that has used deltalake's runtime can hang in the child
    with multiprocessing.get_context("forkserver").Pool(len(cells)) as pool:
        for round_ in range(12):
            uri, go = str(tmp_path / f"t{round_}"), tmp_path / f"go{round_}"
            pending = [pool.apply_async(_write_when_told, (uri, c, j, str(go))) for c, j in cells]
            time.sleep(0.5 if round_ else 10)  # every writer waits on the go-file (the first round imports first)
            go.touch()
            outcomes = [p.get(timeout=120) for p in pending]
            assert outcomes == ["ok"] * len(cells), (round_, outcomes)
            table = pl.from_arrow(DeltaTable(uri).to_pyarrow_table())
            assert isinstance(table, pl.DataFrame)
            assert sorted(table.group_by("condition", "judge").len().rows()) == [(c, j, ROWS) for c, j in cells]
            log = sorted((Path(uri) / "_delta_log").glob("*.json"))
            created_twice += sum("metaData" in f.read_text() for f in log) > 1
    print(f"rounds whose table was created twice: {created_twice} of 12")
