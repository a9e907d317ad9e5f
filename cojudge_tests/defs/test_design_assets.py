"""The design assets through Dagster: the stored split survives a re-run on a grown corpus, the record is appended
once per prompt version."""

import dagster as dg
import duckdb
import polars as pl

from cojudge_assets.defs.design.assets import design_record, design_split
from cojudge_assets.defs.io import KINDS, CojudgeDuckDBIOManager, LockedDuckDBResource


def _attempts_asset(frame: pl.DataFrame) -> dg.AssetsDefinition:
    @dg.asset(name="attempts", kinds=KINDS)
    def attempts() -> pl.DataFrame:
        return frame

    return attempts


def _frame(groups: range, per_group: int, tag: str) -> pl.DataFrame:
    rows = [
        {"attempt_uid": f"{tag}-{g}-{k}", "participant": f"u{g}", "problem_id": f"p{g % 5}"}
        for g in groups
        for k in range(per_group)
    ]
    return pl.DataFrame(rows)


def _store(tmp_path) -> tuple[str, dict]:
    """A DuckDB file and the resources that write the assets' tables into it."""
    db = str(tmp_path / "d.duckdb")
    return db, {
        "io_manager": CojudgeDuckDBIOManager(database=db, schema="main"),
        "duckdb": LockedDuckDBResource(database=db),
    }


def test_a_rerun_on_more_attempts_keeps_every_stored_split(tmp_path):
    db, resources = _store(tmp_path)
    first = _frame(range(80), 2, "a")
    assert dg.materialize([_attempts_asset(first), design_split, design_record], resources=resources).success
    with duckdb.connect(db, read_only=True) as conn:
        stored = conn.execute("select group_key, split from design_split").pl()
    grown = pl.concat([first, _frame(range(0, 80, 2), 1, "b"), _frame(range(80, 130), 2, "c")])
    result = dg.materialize([_attempts_asset(grown), design_split, design_record], resources=resources)
    assert result.success
    with duckdb.connect(db, read_only=True) as conn:
        again = conn.execute("select group_key, split, attempts from design_split").pl()
        record = conn.execute("select * from design_record").pl()
    both = stored.join(again, on="group_key", suffix="_again")
    assert len(both) == 80 and (both["split"] == both["split_again"]).all()
    assert len(again) == 130 and again["attempts"].sum() == len(grown)
    metadata = result.asset_materializations_for_node("design_split")[0].metadata
    assert metadata["groups_kept_from_stored"].value == 80 and metadata["groups_assigned_now"].value == 50
    assert sum(metadata[f"{s}_groups"].value for s in ("train", "validation", "test")) == 130
    assert record.height == 1  # the prompt did not change between the runs


def test_the_unit_setting_splits_by_problem_so_no_test_problem_is_inspected(tmp_path):
    db, resources = _store(tmp_path)
    frame = pl.DataFrame(
        [{"attempt_uid": f"a-{g}", "participant": f"u{g}", "problem_id": f"p{g % 40}"} for g in range(400)]
    )
    by_trajectory = dg.materialize([_attempts_asset(frame), design_split], resources=resources)
    overlap = by_trajectory.asset_materializations_for_node("design_split")[0].metadata
    assert overlap["unit"].value == "trajectory" and overlap["test_problems_also_inspectable"].value > 0
    config = {"ops": {"design_split": {"config": {"unit": "problem"}}}}
    result = dg.materialize([_attempts_asset(frame), design_split], resources=resources, run_config=config)
    assert result.success
    metadata = result.asset_materializations_for_node("design_split")[0].metadata
    assert metadata["unit"].value == "problem" and metadata["test_problems_also_inspectable"].value == 0
    with duckdb.connect(db, read_only=True) as conn:
        table = conn.execute("select unit, split, problem_id from design_split").pl()
    assert table.height == 40 and set(table["unit"]) == {"problem"} and "test" in set(table["split"])


def test_inspectable_requests_writes_each_condition_s_inspectable_requests_read_a_condition_at_a_time(tmp_path):
    from cojudge_assets.core.design import split as ds
    from cojudge_assets.core.judging.requests import write_jsonl
    from cojudge_assets.defs.design.assets import inspectable_requests

    db, resources = _store(tmp_path)
    attempts = _frame(range(60), 2, "a")
    conditions = pl.DataFrame({"condition": ["blind", "nonblind", "prefix12k"]})
    requests = (
        attempts.join(conditions, how="cross")
        .filter(~((pl.col("condition") == "prefix12k") & pl.col("attempt_uid").str.ends_with("-1")))  # fewer asked
        .select(
            "attempt_uid",
            "condition",
            "problem_id",
            request_json=pl.format('{{"code": "{}", "c": "{}"}}', "attempt_uid", "condition"),
            request_hash=pl.format("h-{}-{}", "attempt_uid", "condition"),
            prompt_version=pl.lit("v1"),
            source_code=pl.lit("print(1)"),
        )
    )

    @dg.asset(name="judge_requests", kinds=KINDS, partitions_def=None)
    def judge_requests() -> pl.DataFrame:
        return requests

    assets = [_attempts_asset(attempts), judge_requests, design_split, inspectable_requests]
    result = dg.materialize(assets, resources=resources)
    assert result.success
    with duckdb.connect(db, read_only=True) as conn:
        table = conn.execute("select * from inspectable_requests order by condition").pl()
        split = conn.execute("select * from design_split").pl()
    readable = ds.inspectable_requests(requests, attempts, split)
    assert table["condition"].to_list() == ["blind", "nonblind", "prefix12k"]
    for row in table.iter_rows(named=True):
        mine = readable.filter(pl.col("condition") == row["condition"])
        expected = tmp_path / f"expected.{row['condition']}.jsonl"
        assert write_jsonl(mine, expected) == row["inspectable"] > 0
        asked = requests.filter(pl.col("condition") == row["condition"]).height
        assert row["withheld"] == asked - row["inspectable"] > 0
        assert open(row["file"], "rb").read() == expected.read_bytes()  # noqa: SIM115
