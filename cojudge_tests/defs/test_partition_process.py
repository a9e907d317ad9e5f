"""``cojudge materialize --process-per-partition``: each partition of a partitioned step runs in a child process of
its own (driver.py ``_in_child``), so what one partition leaves in the allocators is gone before the next starts
(issue 33: run one after another in one process, every partition after the first peaked higher,
docs/benchmarks.md). The runs are the same runs: recorded in the command's instance, the same rows written."""

from __future__ import annotations

import functools
import os

import duckdb
import pytest

from cojudge_assets.core.ingest.synthetic import write_corpus, write_judgments
from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import _in_child, open_instance, run_steps

UPSTREAM = ("ingest", "judge_requests")
ATTEMPTS = 120  # the smallest study of every shape: 2 judges x 3 conditions


def run_pids(instance, run_id: str) -> set[int]:
    """The pids Dagster recorded for a run's steps (its in-process executor's engine event)."""
    pids = set()
    for record in instance.all_logs(run_id):
        event = record.dagster_event
        data = getattr(event, "event_specific_data", None) if event is not None else None
        pid = (getattr(data, "metadata", None) or {}).get("pid")
        if pid is not None:
            pids.add(int(pid.value))
    return pids


@pytest.fixture()
def study(tmp_path):
    labels = write_corpus(tmp_path / "corpus", ATTEMPTS, seed=3)
    judges = write_judgments(tmp_path, labels, seed=3)
    rebuild = functools.partial(
        build_definitions,
        corpus=str(tmp_path / "corpus"),
        layout="progsnap2",
        database=str(tmp_path / "study.duckdb"),
        judges_path=str(judges),
    )
    return rebuild, tmp_path


def test_each_partition_runs_in_a_child_process_of_its_own_and_writes_its_rows(study):
    rebuild, folder = study
    (folder / "home").mkdir()
    instance = open_instance(folder / "home")
    lines: list[str] = []
    upstream = run_steps(rebuild(), instance, jobs=UPSTREAM, echo=lines.append)  # in this process
    assert upstream, "\n".join(lines)
    outcome = run_steps(rebuild(), instance, jobs=("judge_outputs",), echo=lines.append, rebuild=rebuild)
    assert outcome, "\n".join(lines)
    partitions = {p for name, p in outcome.materialized if name == "judge_outputs"}
    assert len(partitions) == 6, lines  # 2 judges x 3 conditions

    pids: dict[str, set[int]] = {}
    for run in instance.get_runs():
        partition = run.tags.get("dagster/partition")
        if run.job_name == "judge_outputs_job":
            pids[partition] = run_pids(instance, run.run_id)
    assert set(pids) == partitions
    assert all(len(p) == 1 for p in pids.values()), pids
    children = {p for found in pids.values() for p in found}
    assert os.getpid() not in children and len(children) == 6, pids  # a process of its own each
    assert all(", peak " in line for line in lines if "judge_outputs_job[" in line), lines  # the child's peak

    with duckdb.connect(str(folder / "study.duckdb"), read_only=True) as conn:
        rows = conn.sql("select judge, condition, count(*) from main.judge_outputs group by all").fetchall()
    assert sorted(n for _, _, n in rows) == [ATTEMPTS] * 6, rows


def outputs_alive_after_runs(rebuild, home) -> int:
    """In a fresh process (the first run of a process is the one Dagster's records keep, driver.py
    ``_release_outputs``): every judge_outputs partition run in it, then the judge_outputs frames still alive."""
    import gc

    import polars as pl

    assert run_steps(rebuild(), open_instance(home), jobs=("judge_outputs",), force=True, echo=lambda _: None)
    gc.collect()
    return sum(1 for o in gc.get_objects() if isinstance(o, pl.DataFrame) and "request_hash" in o.columns)


def test_no_partition_output_stays_alive_after_its_run_in_one_process(study):
    import multiprocessing
    from concurrent.futures import ProcessPoolExecutor

    rebuild, folder = study
    (folder / "home").mkdir()
    assert run_steps(rebuild(), open_instance(folder / "home"), jobs=UPSTREAM, echo=lambda _: None)
    with ProcessPoolExecutor(max_workers=1, mp_context=multiprocessing.get_context("spawn")) as pool:
        alive = pool.submit(outputs_alive_after_runs, rebuild, folder / "home").result()
    assert alive == 0  # was 1: the first partition's frame, under every later partition


def test_a_child_that_dies_is_a_failed_run_that_says_so(tmp_path):
    ran = _in_child(functools.partial(os._exit, 3), tmp_path, {}, ("judge_outputs_job", "blind|a"), set(), {})
    assert not ran.success
    assert "judge_outputs_job[blind|a] died before its run ended" in ran.detail


def test_an_instance_without_a_folder_is_refused(study):
    import dagster as dg

    rebuild, _ = study
    with pytest.raises(ValueError, match="has none"):
        run_steps(rebuild(), dg.DagsterInstance.ephemeral(), jobs=("judge_outputs",), rebuild=rebuild)
