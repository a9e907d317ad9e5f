"""The runbook works as written (issue 37): the shell blocks marked ``<!-- runbook:NAME -->`` in
docs/operations.md, taken from the page itself, run on a fresh cluster as root (the case where ``createdb cojudge``
and ``pg_dump cojudge`` failed: ``role "root" does not exist``), libpq pointed at the cluster by ``PGHOST`` and
``PGPORT`` as the page says. Before the role exists ``deployment config --check`` says the role is missing (not
"start it"); after the create block (run twice: it is idempotent) it passes; a row written by the role survives a
backup, its deletion, and the restore of the newest dump. The backup block also runs as a service user that is not
root (the postgres account stands in for one).

The code server's and the daemon's blocks (issue 37's heartbeat churn) run as written beside a control daemon
started with ``-m`` the old way: the control drops its code server at its 60-s workspace refresh and logs "No
heartbeat received", the runbook's daemon starts no code server of its own and logs none."""

from __future__ import annotations

import contextlib
import os
import re
import shutil
import signal
import subprocess
import sys
import tempfile
import textwrap
import time
from pathlib import Path

import dagster as dg
import pytest

from cojudge_tests.conftest import REPO
from cojudge_tests.deploy.support import automation_ticks
from cojudge_tests.judges.fixtures import write_judges_file
from cojudge_tests.services import free_port, pg_binary, postgres_cluster

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
    assert {"backup", "create", "restore"} <= set(blocks), sorted(blocks)
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


HEARTBEAT_WARNING = "No heartbeat received"


def _spawn(script: str, env: dict[str, str], log: Path) -> subprocess.Popen:
    with log.open("w") as out:
        return subprocess.Popen(
            ["bash", "-euo", "pipefail", "-c", script],
            env=env,
            cwd=REPO,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )


def _code_servers_of(parent: int) -> list[int]:
    """The pids of the code servers ``parent`` started: its children running ``dagster api grpc``."""
    found = []
    for proc in Path("/proc").iterdir():
        if not proc.name.isdigit():
            continue
        with contextlib.suppress(OSError):
            ppid = int((proc / "stat").read_text().rsplit(")", 1)[1].split()[1])
            argv = (proc / "cmdline").read_bytes().split(b"\0")
            if ppid == parent and b"api" in argv and b"grpc" in argv:
                found.append(int(proc.name))
    return found


def test_the_runbook_s_daemon_over_its_code_server_drops_no_code_server(tmp_path):
    blocks = runbook_blocks()
    assert {"workspace", "codeserver", "daemon"} <= set(blocks), sorted(blocks)
    write_judges_file(tmp_path / "judges.yaml", "http://127.0.0.1:8001/v1")
    common = {
        **os.environ,
        "COJUDGE_PROFILE": "embedded",
        "COJUDGE_JUDGES": str(tmp_path / "judges.yaml"),
        "COJUDGE_DUCKDB": str(tmp_path / "data" / "cojudge.duckdb"),
        "COJUDGE_CACHE": str(tmp_path / "cache"),
        "COJUDGE_AUTOMATION_INTERVAL_S": "3600",  # one evaluation each: this test is about the code server
        "CODE_PORT": str(free_port()),
    }
    homes = {name: tmp_path / name for name in ("runbook", "control")}
    for home in homes.values():
        home.mkdir()
        # runs are queued, never launched: whatever the sensors request costs nothing here
        (home / "dagster.yaml").write_text(
            "telemetry:\n  enabled: false\n"
            "run_coordinator:\n  module: dagster.core.run_coordinator\n  class: QueuedRunCoordinator\n"
            "  config:\n    max_concurrent_runs: 0\n"
        )
    ours = {**common, "DAGSTER_HOME": str(homes["runbook"])}
    control_env = {**common, "DAGSTER_HOME": str(homes["control"])}
    written = _bash(blocks["workspace"], ours)
    assert written.returncode == 0, written.stderr
    assert f"port: {common['CODE_PORT']}" in (homes["runbook"] / "workspace.yaml").read_text()
    logs = {name: tmp_path / f"{name}.log" for name in ("codeserver", "daemon", "control")}
    processes: list[subprocess.Popen] = []
    try:
        processes.append(_spawn(blocks["codeserver"], ours, logs["codeserver"]))
        processes.append(_spawn(blocks["daemon"], ours, logs["daemon"]))
        processes.append(
            _spawn("exec .venv/bin/dagster-daemon run -m cojudge_assets.definitions", control_env, logs["control"])
        )
        deadline = time.time() + 600  # the control's first refresh is 60 s after its start, its warning 20 s later
        while HEARTBEAT_WARNING not in logs["control"].read_text():
            assert time.time() < deadline, logs["control"].read_text()[-3000:]
            for process in processes:
                assert process.poll() is None, {name: log.read_text()[-2000:] for name, log in logs.items()}
            time.sleep(2)
        daemon, control = processes[1].pid, processes[2].pid  # each block execs its program in place of bash
        assert _code_servers_of(control)  # the control's own code server: the check sees one
        assert not _code_servers_of(daemon)
        for name in ("codeserver", "daemon"):
            assert HEARTBEAT_WARNING not in logs[name].read_text(), logs[name].read_text()[-3000:]
        # the runbook's daemon reached the code location through the code server: its automation sensor evaluated
        instance = dg.DagsterInstance.from_config(str(homes["runbook"]))
        assert automation_ticks(instance, after=0.0), logs["daemon"].read_text()[-3000:]
    finally:
        for process in processes:
            with contextlib.suppress(ProcessLookupError):
                os.killpg(process.pid, signal.SIGKILL)
            process.wait()
