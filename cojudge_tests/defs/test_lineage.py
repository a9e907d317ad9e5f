"""Lineage is derived from asset inputs (issue 17): what an unpartitioned reader of a partitioned asset gets through
the IO manager, and the readers' inputs following the assets the Definitions hold."""

import dagster as dg
import duckdb
import polars as pl

from cojudge_assets.core.report.content import READS, STORES
from cojudge_assets.definitions import build_definitions
from cojudge_assets.defs.io import CojudgeDuckDBIOManager
from cojudge_assets.defs.partitions import condition_judge_key, condition_judge_partitions

PARTITIONS = condition_judge_partitions(["a", "b"])


@dg.asset(partitions_def=PARTITIONS, metadata={"partition_expr": {"condition": "condition", "judge": "judge"}})
def answers(context: dg.AssetExecutionContext) -> pl.DataFrame:
    key = context.partition_key.keys_by_dimension
    return pl.DataFrame({"condition": [key["condition"]], "judge": [key["judge"]], "p": [0.5]})


@dg.asset
def pooled(answers: pl.DataFrame) -> pl.DataFrame:
    return answers.with_columns(pl.lit(answers.width).alias("width"))


def _parents(defs: dg.Definitions, name: str) -> set[str]:
    return {key.to_user_string() for key in defs.resolve_asset_graph().get(dg.AssetKey(name)).parent_keys}


def test_an_unpartitioned_reader_gets_every_materialized_partition_and_only_those(tmp_path):
    db = str(tmp_path / "l.duckdb")
    resources = {"io_manager": CojudgeDuckDBIOManager(database=db, schema="main")}
    instance = dg.DagsterInstance.ephemeral()
    for condition, judge in [("blind", "a"), ("nonblind", "b")]:  # 2 of the 6 partitions
        assert dg.materialize(
            [answers], partition_key=condition_judge_key(condition, judge), resources=resources, instance=instance
        ).success
    assert dg.materialize([answers, pooled], selection=[pooled], resources=resources, instance=instance).success
    with duckdb.connect(db, read_only=True) as conn:
        rows = conn.execute("select condition, judge, width from main.pooled order by all").fetchall()
    assert rows == [("blind", "a", 3), ("nonblind", "b", 3)]


def test_a_reader_of_a_table_never_materialized_fails_naming_it(tmp_path):
    db = str(tmp_path / "l.duckdb")
    resources = {"io_manager": CojudgeDuckDBIOManager(database=db, schema="main")}
    result = dg.materialize([answers, pooled], selection=[pooled], resources=resources, raise_on_error=False)
    assert not result.success
    failure = next(event for event in result.all_events if event.is_step_failure)
    message = failure.step_failure_data.user_failure_data.description
    assert "input answers" in message and "main.answers" in message and "never materialized" in message


def test_the_readers_take_as_inputs_exactly_the_assets_the_definitions_hold(tmp_path, monkeypatch):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "x.duckdb"))
    judges = tmp_path / "judges.yaml"
    judges.write_text("judges:\n  - name: idle\n    model: openai/m\n    enabled: false\n")
    monkeypatch.setenv("COJUDGE_JUDGES", str(judges))
    without = build_definitions()
    keys = {key.to_user_string() for key in without.resolve_asset_graph().get_all_asset_keys()}
    assert not {"judge_outputs", "judges_file", "perturbation_outputs"} & keys
    assert _parents(without, "predictions") == {"judge_requests", "attempts", "participant_context"}
    assert _parents(without, "drift_report") == {"attempts"}
    assert _parents(without, "perturbation_metrics") == {"mutants", "judge_metrics"}

    judges.write_text("judges:\n  - name: rubric\n    model: cojudge/static-rubric\n")
    defs = build_definitions()
    assert "judge_outputs" in _parents(defs, "predictions") and "judge_outputs" in _parents(defs, "judge_metrics")
    assert _parents(defs, "drift_report") == {"attempts", "judge_outputs"}
    assert "perturbation_outputs" in _parents(defs, "perturbation_metrics")
    # the report reads the asset tables its sections name (READS), the judging path's stores from DuckDB
    read = {name for names in READS.values() for name in names}
    assert _parents(defs, "report") == read - set(STORES)
