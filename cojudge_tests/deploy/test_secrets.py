"""A planted Postgres password appears nowhere (issue 34): not in what a refused run prints or writes (the password
in the URL's user part, in ``?password=`` and its other spellings), and not in any file, log, table or event a
deployed run writes when the password is given the way the refusal says (libpq's ``PGPASSWORD``), a run refused
inside Dagster (its tables root claimed by another database) included. Every file under the test's folder (the
instance's home with its compute logs, the tables root, the side files), every Delta table read back (parquet
compresses, so a byte grep alone could miss one), and a ``pg_dump`` of both databases (Dagster's run and event
storage, the judge store, the deployment's marks) are searched."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import dagster as dg
import polars as pl
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.deploy.support import deployed_env, deployed_instance
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer
from cojudge_tests.services import free_port, pg_binary

pytestmark = [pytest.mark.slow, pytest.mark.timeout(1800)]

PLANTED = "Pl4nted-pw-7Qx"
GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})


def _leaks(folder: Path) -> list[str]:
    """Files under ``folder`` whose bytes hold the password, and Delta tables whose rows do."""
    from deltalake import DeltaTable

    found = [str(p) for p in folder.rglob("*") if p.is_file() and PLANTED.encode() in p.read_bytes()]
    for log in folder.rglob("_delta_log"):
        frame = pl.from_arrow(DeltaTable(str(log.parent)).to_pyarrow_table())
        assert isinstance(frame, pl.DataFrame)
        if PLANTED in json.dumps(frame.to_dicts(), default=str):
            found.append(f"Delta table {log.parent}")
    return found


def _dump(postgres, database: str) -> str:
    pg_dump = pg_binary("pg_dump")
    assert pg_dump is not None
    done = subprocess.run(
        [pg_dump, "-h", postgres.host, "-p", str(postgres.port), "-U", postgres.user, database],
        capture_output=True,
        text=True,
        timeout=300,
        check=True,
    )
    return done.stdout


def _cli(env: dict[str, str], cwd: Path, *argv: str) -> subprocess.CompletedProcess:
    return subprocess.run(
        [sys.executable, "-m", "cojudge_assets.cli", *argv],
        env={**os.environ, **env},
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=300,
    )


def test_a_planted_password_appears_in_no_file_log_table_or_event(tmp_path, monkeypatch, postgres):
    import psycopg2

    role = f"secret_{free_port()}"
    admin = psycopg2.connect(postgres.dsn)
    admin.autocommit = True
    with admin.cursor() as cur:
        cur.execute(f"create role {role} login password '{PLANTED}'")
        cur.execute(f"create database {role} owner {role}")
        cur.execute(f"create database {role}_other owner {role}")
        cur.execute("show hba_file")
        hba = Path(cur.fetchone()[0])
    rules = hba.read_text()
    hba.write_text(f"host all {role} 127.0.0.1/32 scram-sha-256\n{rules}")  # this role must give its password
    printed: list[str] = []
    try:
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        time.sleep(0.5)
        monkeypatch.setenv("LOOPBACK_KEY", "sk-secrets")
        monkeypatch.setenv("PGPASSFILE", str(tmp_path / "no-pgpass"))
        corpus = write_synthetic_progsnap2(tmp_path / "corpus", 4)
        with LoopbackServer() as server:
            server.script = [("ok", GOOD)]
            judges = write_judges_file(tmp_path / "judges.yaml", server.api_base)
            common = {
                "COJUDGE_JUDGES": str(judges),
                "COJUDGE_CORPUS": str(corpus),
                "COJUDGE_LAYOUT": "progsnap2",
                "COJUDGE_PROVIDER_LIMITS": "*=2",
                "DAGSTER_HOME": str(tmp_path / "home"),
            }
            host = f"{postgres.host}:{postgres.port}"
            # 1. refused runs: the password in the URL, each spelling; every entry refuses in one line, exit 2
            for url in (
                f"postgresql+psycopg2://{role}:{PLANTED}@{host}/{role}",
                f"postgresql+psycopg2://{role}@{host}/{role}?password={PLANTED}",
                f"postgresql+psycopg2://{role}@{host}/{role}?sslmode=prefer&Password={PLANTED}",
                f"postgresql+psycopg2://{role}@{host}/{role}?pass%77ord={PLANTED}",
            ):
                env = {**common, **deployed_env(tmp_path / "refused", url)}
                for argv in (
                    ("materialize",),
                    ("deployment", "config", "--check", "--home", str(tmp_path / "refused-home")),
                    ("deployment", "config"),
                ):
                    done = _cli(env, tmp_path, *argv)
                    printed += [done.stdout, done.stderr]
                    assert done.returncode == 2, (argv, done.stdout, done.stderr)
                    assert done.stderr.count("\n") == 1 and "carries a password" in done.stderr, done.stderr
            assert not (tmp_path / "refused").exists() and not (tmp_path / "refused-home").exists()

            # 2. a deployed run, the password in PGPASSWORD (the way the refusal points to)
            monkeypatch.setenv("PGPASSWORD", PLANTED)
            url = f"postgresql+psycopg2://{role}@{host}/{role}"
            env = {**common, **deployed_env(tmp_path / "deployed", url)}
            (tmp_path / "deployed" / "files").mkdir(parents=True)
            done = _cli(env, tmp_path, "deployment", "config", "--check", "--home", str(tmp_path / "home"))
            printed += [done.stdout, done.stderr]
            assert done.returncode == 0, done.stderr
            instance = deployed_instance(tmp_path / "home", {**os.environ, **env})
            for name, value in env.items():
                monkeypatch.setenv(name, value)
            outcome = run_steps(build_definitions(), instance, {}, echo=printed.append)
            assert outcome.ok, "\n".join(printed)
            assert server.requests, "the deployed run sent no judge request: the store was not exercised"

            # 3. a run refused inside Dagster: the same tables root, another database (its failure event is stored)
            monkeypatch.setenv("COJUDGE_POSTGRES_URL", f"{url}_other")
            refused = run_steps(build_definitions(), instance, {}, jobs=("ingest",), echo=printed.append)
            assert not refused.ok
            events = [
                dg.serialize_value(entry) for run in instance.get_runs() for entry in instance.all_logs(run.run_id)
            ]
            assert any("these tables belong to the deployment" in text for text in events), "no refusal stored"
            instance.dispose()
    finally:
        hba.write_text(rules)
        with admin.cursor() as cur:
            cur.execute("select pg_reload_conf()")
        admin.close()

    assert not [text for text in printed if PLANTED in text]
    assert _leaks(tmp_path) == []
    for database in (role, f"{role}_other"):
        dump = _dump(postgres, database)
        assert "event_logs" in dump or database.endswith("_other")
        assert PLANTED not in dump, database
