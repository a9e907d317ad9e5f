"""A DuckDB file that another process has open (a notebook's read-only connection): ``cojudge materialize`` is
refused at once naming the file and the holder's pid, or waits visibly with ``--wait``; and a step that fails,
the source observation included, never ends in "success"."""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO
from cojudge_tests.faults.support import table_digests
from cojudge_tests.faults.test_cli_faults import env, existing_db, run_cli, tiny_corpus  # noqa: F401 (fixtures)

NOTEBOOK = (
    "import sys, duckdb\n"
    "con = duckdb.connect(sys.argv[1], read_only=sys.argv[2] == 'ro')\n"
    "con.execute('select count(*) from attempts').fetchall()\n"
    "print('open', flush=True); sys.stdin.read()\n"
)


class Notebook:
    """Another process with an ordinary DuckDB connection to the file, open until released."""

    def __init__(self, database: Path, mode: str = "ro"):
        self.process = subprocess.Popen(
            [sys.executable, "-c", NOTEBOOK, str(database), mode],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout.readline().strip() == "open"
        self.pid = self.process.pid

    def release(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0


@pytest.mark.parametrize("mode", ["ro", "rw"])
def test_a_file_open_in_another_process_is_refused_at_once_naming_it(mode, tmp_path, env, tiny_corpus, existing_db):  # noqa: F811
    from cojudge_assets.core.locks import duckdb_holder

    before = table_digests(existing_db)
    notebook = Notebook(existing_db, mode)
    try:
        holder = duckdb_holder(existing_db)
        assert holder is not None and holder.pid == notebook.pid
        assert holder.mode == ("read-only" if mode == "ro" else "read-write")
        started = time.monotonic()
        done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--jobs", "ingest")
        seconds = time.monotonic() - started
    finally:
        notebook.release()
    assert done.returncode == 2, (done.stdout[-2000:], done.stderr[-2000:])
    assert seconds < 60  # a hang guard only; bench/ and docs/operations.md give the figure (about 2 s)
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1 and str(existing_db) in lines[0] and f"pid {notebook.pid}" in lines[0], lines
    assert ("read-only" if mode == "ro" else "read-write") in lines[0] and "--wait" in lines[0]
    assert "success" not in done.stdout and done.stdout == ""
    assert not Path(env["DAGSTER_HOME"]).exists()  # refused before any Dagster instance
    assert duckdb_holder(existing_db) is None
    assert table_digests(existing_db) == before


def test_wait_says_what_it_waits_for(tmp_path, env, tiny_corpus, existing_db):  # noqa: F811
    notebook = Notebook(existing_db)
    command = subprocess.Popen(
        [sys.executable, "-m", "cojudge_assets.cli", "materialize", "--corpus", str(tiny_corpus)]
        + ["--duckdb", str(existing_db), "--jobs", "ingest", "--wait"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = command.stdout.readline()
        assert first.startswith(f"waiting for {existing_db}: pid {notebook.pid}"), first
        assert "read-only" in first
        time.sleep(1.0)
        assert command.poll() is None  # still waiting, not failed
    finally:
        command.terminate()
        out, _ = command.communicate(timeout=60)
        notebook.release()
    assert "success" not in first + out


def test_a_failed_source_observation_fails_the_command(tmp_path, env, tiny_corpus, existing_db, monkeypatch, capsys):  # noqa: F811
    """The file is taken by another process after the preflight: the source observation fails (fast, naming the
    holder), and the command exits 1 without "success"."""
    import cojudge_assets.core.locks as locks
    import cojudge_assets.defs.io  # noqa: F401 (binds the real check into the IO manager and the resource)
    from cojudge_assets import cli

    for name, value in env.items():
        monkeypatch.setenv(name, value)
    monkeypatch.setattr(locks, "wait_for_duckdb", lambda *a, **k: None)  # the command's own checks pass
    notebook = Notebook(existing_db)
    try:
        started = time.monotonic()
        code = cli.main(["materialize", "--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--jobs", "ingest"])
        seconds = time.monotonic() - started
    finally:
        notebook.release()
    out = capsys.readouterr().out
    assert code == 1, out
    assert "observe_sources: FAILED" in out and f"pid {notebook.pid}" in out
    assert "success" not in out and "FAILED" in out.strip().splitlines()[-1]
    assert seconds < 100  # dagster-duckdb alone retries its connect for about two minutes


def test_the_probe_sees_nothing_in_a_free_or_missing_file(tmp_path):
    from cojudge_assets.core.locks import duckdb_holder, wait_for_duckdb

    db = tmp_path / "x.duckdb"
    assert duckdb_holder(db) is None
    duckdb.connect(str(db)).close()
    assert duckdb_holder(db) is None
    own = duckdb.connect(str(db))  # this process's own connection is no other process
    try:
        assert duckdb_holder(db) is None
        wait_for_duckdb(db)
    finally:
        own.close()


def test_wait_for_another_run_says_what_it_waits_for(tmp_path, env, tiny_corpus, existing_db):  # noqa: F811
    from cojudge_assets.core.locks import duckdb_lock_path
    from cojudge_tests.faults.support import Holder

    holder = Holder(existing_db, duckdb_lock_path(existing_db))  # another cojudge run, as far as the lock goes
    command = subprocess.Popen(
        [sys.executable, "-m", "cojudge_assets.cli", "materialize", "--corpus", str(tiny_corpus)]
        + ["--duckdb", str(existing_db), "--jobs", "ingest", "--wait"],
        cwd=REPO,
        env=env,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        first = command.stdout.readline()
        assert first.startswith(f"waiting for {existing_db}: in use by pid {holder.pid}"), first
        assert command.poll() is None
    finally:
        command.terminate()
        out, _ = command.communicate(timeout=60)
        holder.release()
    assert "success" not in first + out
