"""The runbook works as written (issue 37): the shell blocks marked ``<!-- runbook:NAME -->`` in
docs/operations.md, taken from the page itself, run on a fresh cluster as root (the case where ``createdb cojudge``
and ``pg_dump cojudge`` failed: ``role "root" does not exist``), libpq pointed at the cluster by ``PGHOST`` and
``PGPORT`` as the page says. Before the role exists ``deployment config --check`` says the role is missing (not
"start it"); after the create block (run twice: it is idempotent) it passes; a row written by the role survives a
backup, its deletion, and the restore of the newest dump. The backup block also runs as a service user that is not
root (the postgres account stands in for one)."""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
from pathlib import Path

import pytest

from cojudge_tests.conftest import REPO
from cojudge_tests.judges.fixtures import write_judges_file
from cojudge_tests.services import pg_binary, postgres_cluster

pytestmark = [pytest.mark.slow, pytest.mark.timeout(900)]

PAGE = REPO / "docs" / "operations.md"


def runbook_blocks() -> dict[str, str]:
    """Every ```bash block under a ``<!-- runbook:NAME -->`` line of the page, dedented, by name."""
    pattern = re.compile(r"<!-- runbook:(\w+) -->\n\s*```bash\n(.*?)\n\s*```", re.S)
    return {name: textwrap.dedent(body) for name, body in pattern.findall(PAGE.read_text())}


def _bash(script: str, env: dict[str, str]) -> subprocess.CompletedProcess:
    return subprocess.run(
        ["bash", "-euo", "pipefail", "-c", script], env=env, capture_output=True, text=True, timeout=300
    )


def _psql(env: dict[str, str], sql: str) -> str:
    done = _bash(f"psql -X -q -A -t -v ON_ERROR_STOP=1 -U cojudge -d cojudge -c {sql!r}", env)
    assert done.returncode == 0, done.stderr
    return done.stdout.strip()


def test_the_runbook_s_postgres_steps_run_as_written_on_a_fresh_cluster(tmp_path):
    if os.geteuid() != 0 or pg_binary("pg_dump") is None:
        pytest.skip("the runbook's commands are written for root (runuser) and need the PostgreSQL client")
    blocks = runbook_blocks()
    assert sorted(blocks) == ["backup", "create", "restore"], sorted(blocks)
    with postgres_cluster(database="postgres") as cluster:
        env = {
            "PATH": os.environ.get("PATH", "/usr/bin:/bin"),
            "HOME": str(tmp_path),
            "PGHOST": cluster.host,
            "PGPORT": str(cluster.port),
            "BACKUP": str(tmp_path / "backups"),
            "PGCONNECT_TIMEOUT": "10",
        }
        write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
        deployed = {
            **env,
            "COJUDGE_PROFILE": "deployed",
            "COJUDGE_POSTGRES_URL": f"postgresql+psycopg2://cojudge@{cluster.host}:{cluster.port}/cojudge",
            "COJUDGE_TABLES_URI": str(tmp_path / "tables"),
            "COJUDGE_PROVIDER_LIMITS": "*=2",
            "COJUDGE_JUDGES": str(tmp_path / "judges.yaml"),
        }
        check = [sys.executable, "-m", "cojudge_assets.cli", "deployment", "config", "--check"]

        def checked() -> subprocess.CompletedProcess:
            return subprocess.run(check, env=deployed, capture_output=True, text=True, timeout=120, cwd=tmp_path)

        before = checked()
        assert before.returncode == 2 and 'answers, but role "cojudge" does not exist' in before.stderr, before.stderr
        for _ in range(2):  # idempotent: the second run changes nothing and does not fail
            created = _bash(blocks["create"], env)
            assert created.returncode == 0, created.stderr
        after = checked()
        assert after.returncode == 0, after.stderr

        _psql(env, "create table kept (answer text); insert into kept values ('paid for')")
        backup = _bash(blocks["backup"], env)
        assert backup.returncode == 0, backup.stderr
        dumps = list((tmp_path / "backups").glob("cojudge-*.dump"))
        assert len(dumps) == 1 and (tmp_path / "backups").stat().st_mode & 0o077 == 0
        # the backup as a service user that is not root (the postgres account stands in for it), into its own folder
        # (a folder of its own under /tmp: the test's folder is root's alone)
        with tempfile.TemporaryDirectory(prefix="cojudge-runbook-") as folder:
            service = Path(folder)
            shutil.chown(service, "postgres", "postgres")
            as_service = subprocess.run(
                ["runuser", "-u", "postgres", "--", "bash", "-euo", "pipefail", "-c", blocks["backup"]],
                env={**env, "BACKUP": str(service / "backups"), "HOME": str(service)},
                cwd=service,
                capture_output=True,
                text=True,
                timeout=300,
            )
            assert as_service.returncode == 0, as_service.stderr
            assert len(list((service / "backups").glob("cojudge-*.dump"))) == 1
        _psql(env, "delete from kept")
        assert _psql(env, "select count(*) from kept") == "0"
        restored = _bash(blocks["restore"], env)
        assert restored.returncode == 0, restored.stderr
        assert _psql(env, "select answer from kept") == "paid for"
        assert _psql(env, "select pg_catalog.pg_get_userbyid(datdba) from pg_database where datname = 'cojudge'") == (
            "cojudge"
        )
