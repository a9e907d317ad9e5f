"""An input that loads only some columns of only some rows (defs/io.py ``read_only``), under both profiles: the
embedded DuckDB IO manager and the deployed Delta tables. churn reads the nonblind condition's contexts so (a third
of participant_context's rows, two of its columns); what reaches the asset is counted here."""

from __future__ import annotations

import dagster as dg
import polars as pl
import pytest

from cojudge_assets.defs.deployed import tables_io_manager
from cojudge_assets.defs.io import CojudgeDuckDBIOManager, read_only

CONDITIONS = ("blind", "prefix12k", "nonblind")
ATTEMPTS = 20


@dg.asset
def contexts() -> pl.DataFrame:
    return pl.DataFrame(
        {
            "attempt_uid": [f"u{i}" for i in range(ATTEMPTS) for _ in CONDITIONS],
            "condition": list(CONDITIONS) * ATTEMPTS,
            "context": [f"{c} text of u{i}" for i in range(ATTEMPTS) for c in CONDITIONS],
            "chars": [i for i in range(ATTEMPTS) for _ in CONDITIONS],
        }
    )


@dg.asset(
    ins={
        "contexts": dg.AssetIn(
            "contexts", metadata=read_only(columns=["attempt_uid", "context"], rows={"condition": "nonblind"})
        )
    }
)
def nonblind_reader(contexts: pl.DataFrame) -> pl.DataFrame:
    return contexts


@dg.asset(ins={"contexts": dg.AssetIn("contexts", metadata=read_only(columns=["attempt_uid", "condition"]))})
def every_row_reader(contexts: pl.DataFrame) -> pl.DataFrame:
    return contexts


@pytest.mark.parametrize("profile", ["embedded", "deployed"])
def test_an_input_loads_only_its_rows_and_columns(tmp_path, profile):
    io_manager = (
        CojudgeDuckDBIOManager(database=str(tmp_path / "study.duckdb"), schema="main")
        if profile == "embedded"
        else tables_io_manager(str(tmp_path / "tables"))
    )
    assert dg.materialize([contexts], resources={"io_manager": io_manager}).success
    result = dg.materialize(
        [contexts.to_source_asset(), nonblind_reader, every_row_reader], resources={"io_manager": io_manager}
    )
    read = result.output_for_node("nonblind_reader")
    assert read.columns == ["attempt_uid", "context"]
    assert read.height == ATTEMPTS  # one condition of three
    assert sorted(read["attempt_uid"]) == sorted(f"u{i}" for i in range(ATTEMPTS))
    assert all(text.startswith("nonblind text of ") for text in read["context"])
    every = result.output_for_node("every_row_reader")  # columns only: every row
    assert every.columns == ["attempt_uid", "condition"] and every.height == ATTEMPTS * len(CONDITIONS)


def test_read_only_metadata():
    assert read_only() == {}
    assert read_only(columns=("a", "b"), rows={"condition": "nonblind"}) == {
        "columns": ["a", "b"],
        "rows": {"condition": "nonblind"},
    }
