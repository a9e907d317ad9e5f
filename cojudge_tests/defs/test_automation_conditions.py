"""The assets' automation condition (defs/automation.py) on a graph of three assets shaped like the perturbation
study's: ``seeds`` -> ``made`` (two partitions, a run each, like the mutants' buckets) -> ``reader``, which reads
both. A change of ``seeds`` is carried down one level per evaluation, and the reader runs once, after ``made``:
never in the same evaluation as an input of it (issue 37: ``perturbation_requests`` read the old mutants, then ran
again)."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta

import dagster as dg

from cojudge_assets.defs.automation import (
    BACKOFF_S,
    MAX_BACKOFF_S,
    backoff_s,
    evaluate,
    updated_after,
    with_conditions,
)

VERSION = {"seeds": "1"}  # the data version the next materialization of ``seeds`` records


@dg.asset
def seeds() -> dg.Output[int]:
    return dg.Output(1, data_version=dg.DataVersion(VERSION["seeds"]))


@dg.asset(partitions_def=dg.StaticPartitionsDefinition(["x", "y"]))
def made(seeds: int) -> int:
    return seeds


@dg.asset(ins={"made": dg.AssetIn(partition_mapping=dg.AllPartitionMapping())})
def reader(seeds: int, made: dict) -> int:
    return seeds + len(made)


def _defs(tmp_path) -> dg.Definitions:
    return dg.Definitions(
        assets=with_conditions([seeds, made, reader]),
        resources={"io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io"))},
    )


def _run(defs: dg.Definitions, instance: dg.DagsterInstance, requested) -> None:
    """Materialize what an evaluation requested: one run per partition, as the daemon launches them."""
    for key, partitions in requested.partitions.items():
        for partition in partitions:
            job = defs.resolve_implicit_global_asset_job_def()
            result = job.execute_in_process(instance=instance, asset_selection=[key], partition_key=partition)
            assert result.success


def _names(requested) -> set[tuple[str, str | None]]:
    return requested.pairs()


def test_a_change_reaches_a_reader_of_two_levels_once_after_the_last_level(tmp_path, monkeypatch):
    monkeypatch.setitem(VERSION, "seeds", "1")
    defs = _defs(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    found = evaluate(defs, instance)
    assert _names(found) == {("seeds", None)}  # missing: the root first, nothing reads what does not exist
    _run(defs, instance, found)
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("made", "x"), ("made", "y")}  # the reader waits for the partitions requested
    _run(defs, instance, found)
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("reader", None)}
    _run(defs, instance, found)
    found = evaluate(defs, instance, found.cursor)
    assert not found

    # a data fix of the root: its new data version moves both of the reader's inputs
    monkeypatch.setitem(VERSION, "seeds", "2")
    _run(defs, instance, type(found)({dg.AssetKey("seeds"): {None}}))
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("made", "x"), ("made", "y")}  # not the reader yet: made will move too
    _run(defs, instance, found)
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("reader", None)}
    _run(defs, instance, found)
    found = evaluate(defs, instance, found.cursor)
    assert not found  # the reader ran once for the change


def test_a_reader_waits_while_an_input_is_in_a_run_in_progress(tmp_path, monkeypatch):
    monkeypatch.setitem(VERSION, "seeds", "1")
    defs = _defs(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    found = evaluate(defs, instance)
    _run(defs, instance, found)
    # made[x] is materialized; made[y]'s run is started and not finished (a run the daemon launched)
    job = defs.resolve_implicit_global_asset_job_def()
    job.execute_in_process(instance=instance, asset_selection=[dg.AssetKey("made")], partition_key="x")
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("made", "y")}
    run = instance.create_run_for_job(
        job,
        asset_selection=frozenset({dg.AssetKey("made")}),
        tags={"dagster/partition": "y"},
        status=dg.DagsterRunStatus.STARTED,
    )
    assert run.status == dg.DagsterRunStatus.STARTED
    found = evaluate(defs, instance, found.cursor)
    assert ("reader", None) not in _names(found)


def test_a_command_that_leaves_a_requested_input_out_runs_the_reader_over_what_exists(tmp_path, monkeypatch):
    """``cojudge materialize`` with a selection: the steps it leaves out hold nothing downstream."""
    monkeypatch.setitem(VERSION, "seeds", "1")
    defs = _defs(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    found = evaluate(defs, instance)
    _run(defs, instance, found)
    job = defs.resolve_implicit_global_asset_job_def()
    job.execute_in_process(instance=instance, asset_selection=[dg.AssetKey("made")], partition_key="x")
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("made", "y")}

    def without_y(key: dg.AssetKey, partition: str | None) -> bool:
        return key == dg.AssetKey("made") and partition == "y"

    found = evaluate(defs, instance, found.cursor, left_out=without_y)
    assert _names(found) == {("made", "y"), ("reader", None)}


CONDITIONS = dg.StaticPartitionsDefinition(["blind", "nonblind"])


@dg.asset(partitions_def=CONDITIONS)
def requests() -> int:
    return 1


@dg.asset(partitions_def=CONDITIONS)
def answers(requests: int) -> int:
    return requests


def test_a_partition_upstream_holds_only_the_partitions_it_maps_onto(tmp_path):
    """``judge_requests[nonblind]`` requested holds ``judge_outputs`` under nonblind, not under blind."""
    defs = dg.Definitions(
        assets=with_conditions([requests, answers]),
        resources={"io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io"))},
    )
    instance = dg.DagsterInstance.ephemeral()
    found = evaluate(defs, instance)
    assert _names(found) == {("requests", "blind"), ("requests", "nonblind")}
    job = defs.resolve_implicit_global_asset_job_def()
    assert job.execute_in_process(
        instance=instance, asset_selection=[dg.AssetKey("requests")], partition_key="blind"
    ).success
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("requests", "nonblind"), ("answers", "blind")}


def test_an_asset_whose_run_ended_during_the_evaluation_is_not_requested_again(tmp_path, monkeypatch):
    """On the daemon, labels_saved and perturbation_metrics ran twice: their run ended while an evaluation ran,
    after its newly-updated check and before its in-progress check, so that evaluation still found them changed.
    Here the evaluation's snapshot and its newly-updated check are both from before the reader's materialization."""
    from dagster._core.asset_graph_view.asset_graph_view import AssetGraphView
    from dagster._core.definitions.declarative_automation.operands.operands import NewlyUpdatedCondition

    monkeypatch.setitem(VERSION, "seeds", "1")
    defs = _defs(tmp_path)
    instance = dg.DagsterInstance.ephemeral()
    found = evaluate(defs, instance)
    for _ in range(3):  # seeds, then made, then the reader
        _run(defs, instance, found)
        found = evaluate(defs, instance, found.cursor)
    assert not found
    monkeypatch.setitem(VERSION, "seeds", "2")
    _run(defs, instance, type(found)({dg.AssetKey("seeds"): {None}}))
    found = evaluate(defs, instance, found.cursor)
    _run(defs, instance, found)  # made
    found = evaluate(defs, instance, found.cursor)
    assert _names(found) == {("reader", None)}
    before = instance.event_log_storage.get_maximum_record_id()
    _run(defs, instance, found)  # the reader's run ends during the next evaluation
    assert updated_after(instance, dg.AssetKey("reader"), before) == {None}

    async def not_seen_yet(self, context):
        return context.get_empty_subset(), None

    monkeypatch.setattr(AssetGraphView, "last_event_id", property(lambda self: before))
    monkeypatch.setattr(NewlyUpdatedCondition, "compute_subset_with_timing_metadata", not_seen_yet)
    assert ("reader", None) not in _names(evaluate(defs, instance, found.cursor))


BROKEN = {"raise": True}


@dg.asset(partitions_def=dg.StaticPartitionsDefinition(["p", "q"]))
def flaky(seeds: int) -> int:
    if BROKEN["raise"]:
        raise RuntimeError("the provider refused the key")
    return seeds


def _daemon_requests(defs: dg.Definitions, instance: dg.DagsterInstance, at: datetime) -> set:
    """What the automation sensor would request at ``at`` (Dagster's evaluator, not the command's)."""
    result = dg.evaluate_automation_conditions(defs=defs, instance=instance, evaluation_time=at)
    return {(key.to_user_string(), p) for key in (flaky.key,) for p in result.get_requested_partitions(key)}


def test_a_partition_whose_step_fails_is_requested_again_after_a_doubling_backoff_and_a_command_retries_at_once(
    tmp_path, monkeypatch
):
    """Issue 37: a step that fails every time was requested again at every evaluation (a run every 30 s). Now the
    daemon waits 5 min after one failure, 10 after two in a row; a command (``evaluate``) retries when asked."""
    BROKEN["raise"] = True
    defs = dg.Definitions(
        assets=with_conditions([seeds, flaky]),
        resources={"io_manager": dg.FilesystemIOManager(base_dir=str(tmp_path / "io"))},
    )
    instance = dg.DagsterInstance.ephemeral()
    job = defs.resolve_implicit_global_asset_job_def()
    assert job.execute_in_process(instance=instance, asset_selection=[seeds.key]).success

    def fail_once() -> float:
        result = job.execute_in_process(
            instance=instance, asset_selection=[flaky.key], partition_key="p", raise_on_error=False
        )
        assert not result.success
        record = instance.get_run_record_by_id(result.run_id)
        assert record is not None and record.dagster_run.tags.get("dagster/failure_reason") == "STEP_FAILURE"
        assert record.end_time is not None
        return record.end_time

    ended = fail_once()
    at = datetime.fromtimestamp(ended, UTC)
    # q never ran: requested; p failed a moment ago: held for BACKOFF_S, then requested again
    assert _daemon_requests(defs, instance, at + timedelta(seconds=10)) == {("flaky", "q")}
    assert ("flaky", "p") in _daemon_requests(defs, instance, at + timedelta(seconds=BACKOFF_S + 1))
    assert ("flaky", "p") in evaluate(defs, instance).pairs()  # the command: at once

    ended = fail_once()  # a second failure in a row: twice the wait
    at = datetime.fromtimestamp(ended, UTC)
    assert ("flaky", "p") not in _daemon_requests(defs, instance, at + timedelta(seconds=BACKOFF_S + 1))
    assert ("flaky", "p") in _daemon_requests(defs, instance, at + timedelta(seconds=2 * BACKOFF_S + 1))
    assert backoff_s(30) == MAX_BACKOFF_S

    # a run failed from outside (run monitoring: the worker is gone) carries no failure reason: requested at once
    BROKEN["raise"] = False
    run = instance.create_run_for_job(
        job_def=job, asset_selection=frozenset({flaky.key}), tags={"dagster/partition": "p"}
    )
    instance.report_run_failed(run, "the run's worker process is gone")
    failed = instance.get_run_by_id(run.run_id)
    assert failed is not None and failed.status == dg.DagsterRunStatus.FAILURE
    assert "dagster/failure_reason" not in failed.tags
    assert ("flaky", "p") in _daemon_requests(defs, instance, datetime.now(UTC))
