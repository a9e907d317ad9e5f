"""Bad input and concurrent use of ``cojudge materialize``: refused at once, in one line, with nothing touched.

Each bad invocation runs the command as a subprocess against a small DuckDB file built here (not the pipeline)
and compares every table (row count and an order-free checksum) and the file's bytes before and after.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import sys
import textwrap
from pathlib import Path

import duckdb
import pytest

from cojudge_tests.conftest import REPO
from cojudge_tests.faults.support import Holder, table_digests

DEMO = REPO / "data" / "demo"
NO_JUDGES = "judges:\n  - name: sample-exec\n    model: cojudge/sample-exec\n    enabled: false\n"
MISSING_KEY = "COJUDGE_FAULTS_TEST_KEY_NEVER_SET"


def file_digest(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


@pytest.fixture
def existing_db(tmp_path) -> Path:
    """A DuckDB file that already holds ingest tables (three attempts, two problems, one quarantined page)."""
    db = tmp_path / "store" / "cojudge.duckdb"
    db.parent.mkdir()
    con = duckdb.connect(str(db))
    con.execute(
        "create table attempts as select * from (values ('u01/a-01', 'a', 'AC'), ('u01/a-02', 'a', 'WA'), "
        "('u02/b-01', 'b', 'TLE')) v(attempt_uid, problem_id, verdict)"
    )
    con.execute("create table problems as select * from (values ('a', 'A'), ('b', 'B')) v(problem_id, name)")
    con.execute("create table quarantine as select 'pages/u03/x.html' as source_path, 'parse' as stage")
    con.close()
    return db


@pytest.fixture
def env(tmp_path) -> dict[str, str]:
    """The command's environment: its own DAGSTER_HOME (not created yet), a judges file with no enabled judge."""
    judges = tmp_path / "judges.yaml"
    judges.write_text(NO_JUDGES)
    clean = {k: v for k, v in os.environ.items() if k not in ("COJUDGE_DUCKDB", "COJUDGE_JUDGES", MISSING_KEY)}
    return {**clean, "DAGSTER_HOME": str(tmp_path / "dagster_home"), "COJUDGE_JUDGES": str(judges)}


@pytest.fixture
def tiny_corpus(tmp_path) -> Path:
    """One Python page of the demo corpus with its problem package: the cheapest corpus that yields an attempt."""
    corpus = tmp_path / "corpus"
    (corpus / "pages" / "u01").mkdir(parents=True)
    shutil.copyfile(DEMO / "pages" / "u01" / "brackets-01.html", corpus / "pages" / "u01" / "brackets-01.html")
    shutil.copytree(DEMO / "problems" / "brackets", corpus / "problems" / "brackets")
    shutil.copyfile(DEMO / "contest.yaml", corpus / "contest.yaml")
    return corpus


def run_cli(env: dict[str, str], *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cojudge_assets.cli", "materialize", *args],
        cwd=REPO,
        env=env,
        capture_output=True,
        text=True,
        timeout=timeout,
    )


def assert_refused(done: subprocess.CompletedProcess, *named: str) -> str:
    """Exit 2, one line on stderr naming each of ``named``, nothing on stdout."""
    assert done.returncode == 2, (done.returncode, done.stdout[-2000:], done.stderr[-2000:])
    lines = done.stderr.strip().splitlines()
    assert len(lines) == 1, done.stderr
    for name in named:
        assert name in lines[0], (name, lines[0])
    assert done.stdout == ""
    return lines[0]


def bad_invocations(tmp_path: Path, corpus: Path) -> dict[str, tuple[list[str], dict[str, str], tuple[str, ...]]]:
    """{case: (arguments, extra environment, what the message names)}; the DuckDB file is appended by the test."""
    (tmp_path / "a_file").write_text("not a folder")
    empty = tmp_path / "empty_corpus"
    (empty / "pages").mkdir(parents=True)
    (empty / "problems").mkdir()
    hosted = tmp_path / "hosted.yaml"
    hosted.write_text(
        textwrap.dedent(f"""\
        judges:
          - name: hosted-judge
            model: openai/gpt-5.2
            enabled: true
            api_key_env: {MISSING_KEY}
          - name: off-judge
            model: openai/gpt-5.2
            enabled: false
            api_key_env: {MISSING_KEY}_TOO
        """)
    )
    broken = tmp_path / "broken.yaml"
    broken.write_text("judges: [\n  - name: x\n")
    return {
        "missing corpus": (["--corpus", str(tmp_path / "no_such_corpus")], {}, ("--corpus", "no_such_corpus")),
        "corpus is a file": (["--corpus", str(tmp_path / "a_file")], {}, ("--corpus", "not a folder")),
        "misspelt layout": (["--layout", "pagez"], {}, ("--layout", "pagez", "pages, progsnap2, codenet")),
        "misspelt layout with corpus": (
            ["--corpus", str(corpus), "--layout", "progsnap"],
            {},
            ("--layout", "progsnap"),
        ),
        "enabled judge without its key": (
            ["--corpus", str(corpus), "--judges-file", str(hosted)],
            {},
            (MISSING_KEY, "hosted-judge"),
        ),
        "judges file does not parse": (
            ["--corpus", str(corpus), "--judges-file", str(broken)],
            {},
            ("--judges-file", "not valid YAML"),
        ),
        "judges file missing": (
            ["--corpus", str(corpus), "--judges-file", str(tmp_path / "nope.yaml")],
            {},
            ("--judges-file", "not found"),
        ),
        "unknown --judge": (["--corpus", str(corpus), "--judge", "gtp-5.2"], {}, ("--judge", "gtp-5.2")),
        "misspelt --jobs": (
            ["--corpus", str(corpus), "--jobs", "ingest,judge_output_job"],
            {},
            ("--jobs", "judge_output_job"),
        ),
        # no judging job asked for: the key is not needed, and the empty corpus is what is refused
        "empty corpus, key not needed": (
            ["--corpus", str(empty), "--judges-file", str(hosted), "--jobs", "ingest"],
            {},
            ("--corpus", "no input"),
        ),
        "empty corpus": (["--corpus", str(empty)], {}, ("--corpus", "no input", "holds 3 attempts", "--allow-empty")),
        "DAGSTER_HOME under a file": (
            ["--corpus", str(corpus)],
            {"DAGSTER_HOME": str(tmp_path / "a_file" / "home")},
            ("DAGSTER_HOME",),
        ),
        "cache folder under /proc": (
            ["--corpus", str(corpus)],
            {"COJUDGE_CACHE": "/proc/cojudge-cache"},
            ("COJUDGE_CACHE", "cannot create the folder"),
        ),
        "shards out of range": (
            ["--corpus", str(corpus)],
            {"COJUDGE_SHARDS": "0"},
            ("COJUDGE_SHARDS", "'0'", "from 1 to 256"),
        ),
        "deployed profile without its settings": (
            ["--corpus", str(corpus)],
            {"COJUDGE_PROFILE": "deployed"},
            ("COJUDGE_POSTGRES_URL is not set", "COJUDGE_TABLES_URI is not set"),
        ),
        "automation interval not a number": (
            ["--corpus", str(corpus)],
            {"COJUDGE_AUTOMATION_INTERVAL_S": "30s"},
            ("COJUDGE_AUTOMATION_INTERVAL_S", "'30s'", "whole number of seconds"),
        ),
    }


CASES = [
    "missing corpus",
    "corpus is a file",
    "misspelt layout",
    "misspelt layout with corpus",
    "enabled judge without its key",
    "judges file does not parse",
    "judges file missing",
    "unknown --judge",
    "misspelt --jobs",
    "empty corpus",
    "empty corpus, key not needed",
    "DAGSTER_HOME under a file",
    "automation interval not a number",
    "cache folder under /proc",
    "shards out of range",
    "deployed profile without its settings",
]


@pytest.mark.parametrize("case", CASES)
def test_a_bad_invocation_is_refused_in_one_line_and_touches_nothing(case, tmp_path, existing_db, env, tiny_corpus):
    args, extra, named = bad_invocations(tmp_path, tiny_corpus)[case]
    before, raw = table_digests(existing_db), file_digest(existing_db)
    done = run_cli({**env, **extra}, *args, "--duckdb", str(existing_db))
    assert_refused(done, *named)
    assert table_digests(existing_db) == before
    assert file_digest(existing_db) == raw
    assert sorted(p.name for p in existing_db.parent.iterdir()) == [existing_db.name]  # no lock, no WAL
    assert not Path(env["DAGSTER_HOME"]).exists()  # no Dagster instance was started


def test_all_bad_invocations_are_listed(tmp_path, tiny_corpus):
    assert sorted(bad_invocations(tmp_path, tiny_corpus)) == sorted(CASES)


def test_a_duckdb_folder_that_cannot_be_created_is_refused(tmp_path, env, tiny_corpus):
    (tmp_path / "a_file").write_text("not a folder")
    target = tmp_path / "a_file" / "sub" / "cojudge.duckdb"
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(target))
    assert_refused(done, "--duckdb", str(tmp_path / "a_file"))
    assert (tmp_path / "a_file").read_text() == "not a folder"
    assert not Path(env["DAGSTER_HOME"]).exists()


def test_a_duckdb_path_that_is_a_folder_is_refused(tmp_path, env, tiny_corpus):
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(tmp_path))
    assert_refused(done, "--duckdb", "is a folder")


def test_an_empty_corpus_on_a_fresh_file_does_not_succeed_silently(tmp_path, env):
    empty = tmp_path / "empty_corpus"
    empty.mkdir()
    target = tmp_path / "new" / "cojudge.duckdb"
    done = run_cli(env, "--corpus", str(empty), "--duckdb", str(target))
    assert_refused(done, "--corpus", str(empty), "--allow-empty")
    assert not target.parent.exists()


def test_the_layouts_are_listed_in_help(env):
    from cojudge_assets.core.ingest.corpus import LAYOUTS

    done = run_cli(env, "--help")
    assert done.returncode == 0
    assert f"one of: {', '.join(LAYOUTS)}" in " ".join(done.stdout.split())
    assert "--allow-empty" in done.stdout and "--wait" in done.stdout


@pytest.mark.slow  # its last step materializes the ingest job (one Python page)
def test_a_second_writer_is_refused_naming_the_holder_and_a_run_after_it_works(tmp_path, env, tiny_corpus, existing_db):
    from cojudge_assets.core.locks import duckdb_lock_path, home_lock_path

    home = Path(env["DAGSTER_HOME"])
    home.mkdir()
    before = table_digests(existing_db)
    args = ("--corpus", str(tiny_corpus), "--duckdb", str(existing_db), "--jobs", "ingest")

    db_holder = Holder(existing_db, duckdb_lock_path(existing_db))
    try:
        line = assert_refused(run_cli(env, *args), str(existing_db), f"pid {db_holder.pid}", "--wait")
    finally:
        db_holder.release()
    assert "in use by" in line
    home_holder = Holder(home, home_lock_path(home))
    try:
        assert_refused(run_cli(env, *args), str(home), f"pid {home_holder.pid}")
        # --allow-empty lets an empty corpus past the preflight; the lock still stops it before anything is touched
        empty = tmp_path / "empty_corpus"
        empty.mkdir()
        assert_refused(
            run_cli(env, "--corpus", str(empty), "--duckdb", str(existing_db), "--allow-empty"),
            f"pid {home_holder.pid}",
        )
    finally:
        home_holder.release()
    assert table_digests(existing_db) == before
    assert not (home / "storage").exists()  # no Dagster run database was created while refused

    # after both holders: a run works, in a DuckDB folder that did not exist (created by the command)
    target = tmp_path / "new" / "folder" / "cojudge.duckdb"
    done = run_cli(env, "--corpus", str(tiny_corpus), "--duckdb", str(target), "--jobs", "ingest")
    assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
    assert done.stdout.strip().splitlines()[-1] == f"success: tables in {target} (1 attempts)"
    assert table_digests(target)["attempts"][0] == 1
