"""Run safety below the command: the locks, the ingest refusal of an input that yielded nothing (also for runs
launched from the Dagster UI), and figures that do not outlive the run that drew them."""

from __future__ import annotations

import fcntl
import os
import subprocess
import sys
import threading
from pathlib import Path

import dagster as dg
import duckdb
import polars as pl
import pytest

from cojudge_assets.core.locks import LockHeld, duckdb_lock_path, hold, hold_duckdb, read_holder
from cojudge_assets.core.report import plots
from cojudge_assets.core.report.document import Figure, Section, write_report
from cojudge_assets.defs.io import LockedDuckDBResource
from cojudge_tests.conftest import REPO
from cojudge_tests.faults.support import HOLD, Holder, table_digests
from cojudge_tests.report.test_report_render import tiny_png


def test_a_lock_held_by_another_process_is_refused_naming_its_pid(tmp_path):
    db = tmp_path / "x.duckdb"
    holder = Holder(db, duckdb_lock_path(db))
    try:
        assert read_holder(duckdb_lock_path(db))["pid"] == holder.pid
        with pytest.raises(LockHeld, match=f"{db} is in use by pid {holder.pid} "):
            with hold_duckdb(db):
                pass
    finally:
        holder.release()
    with hold_duckdb(db):  # released: free again
        assert read_holder(duckdb_lock_path(db))["pid"] != holder.pid


def test_a_killed_holder_leaves_no_stale_lock(tmp_path):
    db = tmp_path / "x.duckdb"
    holder = Holder(db, duckdb_lock_path(db))
    holder.kill()
    with hold_duckdb(db):  # a stale lock would raise LockHeld here
        assert read_holder(duckdb_lock_path(db)).get("pid") == os.getpid()


def test_waiting_for_the_holder(tmp_path):
    db = tmp_path / "x.duckdb"
    holder = Holder(db, duckdb_lock_path(db))
    threading.Timer(0.5, holder.release).start()
    with hold_duckdb(db, wait_s=120):
        assert holder.process.stdin.closed  # acquired only once the holder was told to let go


def test_steps_of_one_run_in_separate_processes_wait_for_each_other(tmp_path):
    """The multiprocess executor: a step of the same Dagster run waits for its sibling instead of failing."""
    db = tmp_path / "x.duckdb"
    holder = Holder(db, duckdb_lock_path(db), run_id="run-1")
    threading.Timer(0.5, holder.release).start()
    with hold_duckdb(db, run_id="run-1"):  # wait_s=0, yet it waits: same run
        assert holder.process.stdin.closed


def test_the_lock_is_reentrant_and_counts_as_held_by_a_child_of_its_holder(tmp_path):
    db = tmp_path / "x.duckdb"
    lock = duckdb_lock_path(db)
    with hold_duckdb(db), hold_duckdb(db):  # the command holds it, then its in-process run's IO manager
        child = subprocess.run(
            [sys.executable, "-c", HOLD, str(db), str(lock)],
            cwd=REPO,
            input="",
            capture_output=True,
            text=True,
            timeout=120,
        )
        assert child.returncode == 0 and child.stdout.strip() == "held", child.stderr
    with pytest.raises(LockHeld):  # but not by an unrelated process: a sibling holder refuses the next one
        holder = Holder(db, lock)
        try:
            with hold(db, lock):
                pass
        finally:
            holder.release()


def _ingest_defs_assets():
    from cojudge_assets.defs.ingest.assets import problems, read_contest, submission_pages

    return [problems, submission_pages, read_contest]


def _stored(db: Path) -> Path:
    """A DuckDB file holding ingest tables of an earlier run."""
    con = duckdb.connect(str(db))
    for name, rows in (
        ("attempts", 3),
        ("problems", 2),
        ("submission_pages", 3),
        ("quarantine", 1),
        ("prompt_logs", 2),
    ):
        con.execute(f"create table {name} as select range as i, 'row ' || range as text from range({rows})")
    con.close()
    return db


def _materialize_ingest(db: Path, corpus: Path, **settings):
    from cojudge_assets.defs.io import CojudgeDuckDBIOManager
    from cojudge_assets.defs.resources import CorpusResource

    return dg.materialize(
        _ingest_defs_assets(),
        raise_on_error=False,
        resources={
            "io_manager": CojudgeDuckDBIOManager(database=str(db), schema="main"),
            "corpus": CorpusResource(path=str(corpus), **settings),
        },
    )


@pytest.mark.parametrize("corpus_kind", ["missing folder", "no pages", "every page quarantined"])
def test_an_ingest_run_refuses_to_replace_stored_tables_with_nothing(tmp_path, corpus_kind):
    """What the command's preflight checks, a run launched from the UI checks too; and a corpus whose pages all
    fail to parse yields 0 attempts: refused before the multi-asset stores any of its outputs."""
    from cojudge_assets.driver import _refusal

    db = _stored(tmp_path / "c.duckdb")
    corpus = tmp_path / "corpus"
    if corpus_kind != "missing folder":
        (corpus / "pages" / "u01").mkdir(parents=True)
    if corpus_kind == "every page quarantined":
        (corpus / "pages" / "u01" / "a-01.html").write_text("<html><body>no fields here</body></html>")
    before = table_digests(db)
    result = _materialize_ingest(db, corpus)
    assert not result.success
    assert str(corpus) in _refusal(result) and "allow_empty" in _refusal(result)
    after = table_digests(db)
    for name in ("attempts", "quarantine", "prompt_logs"):
        assert after[name] == before[name], name
    if corpus_kind != "every page quarantined":
        assert after == before  # nothing read at all: every table as it was
    else:
        assert "yielded 0 attempts from 1 raw file(s), 1 quarantined" in _refusal(result)


def test_allow_empty_replaces_the_tables_when_meant(tmp_path):
    db = _stored(tmp_path / "c.duckdb")
    (tmp_path / "corpus" / "pages").mkdir(parents=True)
    result = _materialize_ingest(db, tmp_path / "corpus", allow_empty=True)
    assert result.success
    assert table_digests(db)["attempts"][0] == 0


def test_an_ingest_run_from_the_ui_is_refused_while_the_command_holds_the_file(tmp_path):
    db = _stored(tmp_path / "c.duckdb")
    corpus = tmp_path / "corpus"
    (corpus / "pages" / "u01").mkdir(parents=True)
    before = table_digests(db)
    holder = Holder(db, duckdb_lock_path(db))
    try:
        result = _materialize_ingest(db, corpus, allow_empty=True)
    finally:
        holder.release()
    assert not result.success
    errors = [getattr(e.event_specific_data, "error", None) for e in result.all_events]
    messages = " ".join(error.to_string() for error in errors if error is not None)
    assert f"in use by pid {holder.pid}" in messages
    assert table_digests(db) == before


def _held_elsewhere(lock: Path) -> bool:
    fd = os.open(lock, os.O_RDWR | os.O_CREAT)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        fcntl.flock(fd, fcntl.LOCK_UN)
        return False
    except BlockingIOError:
        return True
    finally:
        os.close(fd)


def test_a_sensor_holds_the_file_only_while_its_connection_is_open(tmp_path):
    """The drift sensor's DuckDB resource (outside a run) does not hold the lock for its whole tick, during which it
    probes providers: only while a connection is open, marked brief."""
    db = tmp_path / "x.duckdb"
    lock = duckdb_lock_path(db)
    with dg.build_resources({"duckdb": LockedDuckDBResource(database=str(db))}) as resources:
        assert not _held_elsewhere(lock)
        with resources.duckdb.get_connection() as conn:
            assert conn.execute("select 42").fetchone() == (42,)
            assert _held_elsewhere(lock) and read_holder(lock)["brief"] is True
        assert not _held_elsewhere(lock)


def _judge_cache_run(db: Path) -> dg.ExecuteInProcessResult:
    @dg.asset
    def reads_the_cache(duckdb: LockedDuckDBResource) -> None:
        with duckdb.get_connection() as conn:
            conn.execute("create table if not exists t as select 1 as x")

    return dg.materialize(
        [reads_the_cache], resources={"duckdb": LockedDuckDBResource(database=str(db))}, raise_on_error=False
    )


def test_a_run_waits_for_a_sensors_brief_hold_and_not_for_a_run(tmp_path):
    """A run the daemon starts while the drift sensor reads the judge cache waits for the read (the daemon test
    once failed so); beside another run (or the command) it still fails at once, naming the holder."""
    db = tmp_path / "x.duckdb"
    brief = Holder(db, duckdb_lock_path(db), brief=True)
    threading.Timer(1.0, brief.release).start()
    assert _judge_cache_run(db).success
    assert brief.process.stdin.closed  # it ran once the sensor let go
    run = Holder(db, duckdb_lock_path(db), run_id="another-run")
    try:
        result = _judge_cache_run(db)
    finally:
        run.release()
    assert not result.success
    errors = [getattr(e.event_specific_data, "error", None) for e in result.all_events]
    assert f"in use by pid {run.pid}" in " ".join(error.to_string() for error in errors if error is not None)


def test_remove_figures_deletes_an_assets_own_figures_only(tmp_path):
    for name in ("success_at_turn.png", "struggle.png", "struggle_2.png", "survival.png", "notes.txt"):
        (tmp_path / name).write_bytes(b"x")
    removed = plots.remove_figures(tmp_path, "struggle", "success_at_turn")
    assert [p.name for p in removed] == ["struggle.png", "struggle_2.png", "success_at_turn.png"]
    assert sorted(p.name for p in tmp_path.iterdir()) == ["notes.txt", "survival.png"]
    assert [p.name for p in plots.remove_figures(tmp_path)] == ["survival.png"]  # the folder's owner: every PNG


def test_a_report_keeps_no_figure_of_an_earlier_report(tmp_path):
    old = Section("Old", "", figures=(Figure(tiny_png(tmp_path / "roc_blind.png"), "roc", "guide"),))
    new = Section("New", "", figures=(Figure(tiny_png(tmp_path / "survival.png"), "survival", "guide"),))
    out = tmp_path / "report"
    write_report(out, "t", [old], run_config={}, generated_at="now")
    write_report(out, "t", [new], run_config={}, generated_at="now")
    assert sorted(p.name for p in (out / "figures").iterdir()) == ["survival.png"]
    assert "roc_blind" not in (out / "report.md").read_text()


def test_measurement_without_predictions_leaves_no_figure_of_an_earlier_run(tmp_path, monkeypatch):
    """The issue's case: a run with nothing to measure must not leave last run's ROC curves for the report."""
    from cojudge_assets.core.measurement.predictions import PREDICTIONS_SCHEMA
    from cojudge_assets.defs.io import CojudgeDuckDBIOManager, LockedDuckDBResource
    from cojudge_assets.defs.measurement.assets import measurement_asset, predictions_asset

    db = tmp_path / "c.duckdb"
    con = duckdb.connect(str(db))
    empty = pl.DataFrame(schema=PREDICTIONS_SCHEMA)  # noqa: F841  (read by name by DuckDB)
    con.execute("create table predictions as select * from empty")
    con.close()
    monkeypatch.setenv("COJUDGE_DUCKDB", str(db))
    stale = tiny_png((tmp_path / "measurement").mkdir() or tmp_path / "measurement" / "roc_blind.png")
    measurement = measurement_asset({"predictions"})
    result = dg.materialize(
        [predictions_asset(set()), measurement],
        selection=[measurement],
        resources={
            "io_manager": CojudgeDuckDBIOManager(database=str(db), schema="main"),
            "duckdb": LockedDuckDBResource(database=str(db)),
        },
    )
    assert result.success
    assert not stale.exists()


def test_the_layouts_the_preflight_lists_are_the_readers_own():
    from cojudge_assets.core.ingest.corpus import LAYOUTS
    from cojudge_assets.preflight import known_layouts

    assert known_layouts() == tuple(LAYOUTS)
