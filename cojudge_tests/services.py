"""The services the deployment profile's tests need, started and stopped by the tests themselves: a PostgreSQL
cluster (initdb and pg_ctl as the ``postgres`` user when run as root, since initdb refuses root; on a unix socket
in a folder of its own, and on 127.0.0.1 at a free port) and a Redis server (127.0.0.1, a free port, no disk
persistence). Each lives in a temporary folder that is removed when it stops, so nothing is left behind.

``.ci/bootstrap`` installs postgresql and redis-server from apt when they are missing; a test that needs one skips
with the reason when the binary is absent (never silently in CI: ``CI=true`` turns the skip into a failure).
"""

from __future__ import annotations

import contextlib
import glob
import os
import shutil
import socket
import subprocess
import tempfile
import time
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path

import pytest

PG_USER = "postgres"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _missing(what: str, install: str) -> None:
    reason = f"{what} not found: `bash .ci/bootstrap` installs {install} (as root)"
    if os.environ.get("CI"):
        pytest.fail(reason)
    pytest.skip(reason)


def pg_binary(name: str) -> str | None:
    found = shutil.which(name)
    if found:
        return found
    candidates = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"))
    return candidates[-1] if candidates else None


@dataclass(frozen=True)
class Postgres:
    """A running cluster: connect with ``url`` (SQLAlchemy, psycopg2 driver) or ``dsn`` (libpq)."""

    host: str
    port: int
    user: str
    database: str
    folder: Path

    @property
    def url(self) -> str:
        return f"postgresql+psycopg2://{self.user}@{self.host}:{self.port}/{self.database}"

    @property
    def dsn(self) -> str:
        return f"host={self.host} port={self.port} user={self.user} dbname={self.database}"

    def create_database(self, name: str) -> Postgres:
        createdb = pg_binary("createdb")
        assert createdb is not None
        subprocess.run(
            [createdb, "-h", self.host, "-p", str(self.port), "-U", self.user, name],
            check=True,
            capture_output=True,
            text=True,
            timeout=60,
        )
        return Postgres(self.host, self.port, self.user, name, self.folder)


def _as_postgres(argv: list[str]) -> list[str]:
    """initdb and pg_ctl refuse root: run them as the postgres user when this process is root."""
    return ["runuser", "-u", PG_USER, "--", *argv] if os.geteuid() == 0 else argv


@contextlib.contextmanager
def postgres_cluster(database: str = "cojudge") -> Iterator[Postgres]:
    """A new cluster in a temporary folder, listening on 127.0.0.1 and a unix socket there; stopped (fast mode)
    and removed on exit, also when the body raises."""
    initdb, pg_ctl = pg_binary("initdb"), pg_binary("pg_ctl")
    if initdb is None or pg_ctl is None:
        _missing("PostgreSQL (initdb, pg_ctl)", "postgresql")
    assert initdb is not None and pg_ctl is not None
    folder = Path(tempfile.mkdtemp(prefix="cojudge-pg-"))
    user = PG_USER if os.geteuid() == 0 else os.environ.get("USER", "postgres")
    if os.geteuid() == 0:
        shutil.chown(folder, PG_USER, PG_USER)
    data, log = folder / "data", folder / "server.log"
    port = free_port()
    started = False
    try:
        subprocess.run(
            _as_postgres([initdb, "-D", str(data), "-U", user, "-A", "trust", "--no-sync", "-E", "UTF8"]),
            check=True,
            capture_output=True,
            text=True,
            timeout=120,
        )
        options = f"-c listen_addresses=127.0.0.1 -p {port} -k {folder} -c fsync=off -c max_connections=200"
        subprocess.run(
            _as_postgres([pg_ctl, "-D", str(data), "-l", str(log), "-o", options, "-w", "-t", "60", "start"]),
            check=True,
            capture_output=True,
            text=True,
            timeout=90,
        )
        started = True
        cluster = Postgres("127.0.0.1", port, user, "postgres", folder)
        yield cluster.create_database(database) if database != "postgres" else cluster
    finally:
        if started:
            subprocess.run(
                _as_postgres([pg_ctl, "-D", str(data), "-m", "fast", "-w", "stop"]),
                capture_output=True,
                timeout=90,
            )
        shutil.rmtree(folder, ignore_errors=True)


@dataclass(frozen=True)
class Redis:
    host: str
    port: int

    @property
    def url(self) -> str:
        return f"redis://{self.host}:{self.port}/0"


@contextlib.contextmanager
def redis_server() -> Iterator[Redis]:
    """A Redis server on 127.0.0.1 at a free port, without persistence, in a temporary folder; stopped and
    removed on exit."""
    binary = shutil.which("redis-server")
    if binary is None:
        _missing("redis-server", "redis-server")
    assert binary is not None
    folder = Path(tempfile.mkdtemp(prefix="cojudge-redis-"))
    port = free_port()
    process = subprocess.Popen(
        [binary, "--bind", "127.0.0.1", "--port", str(port), "--save", "", "--appendonly", "no", "--dir", str(folder)],
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    try:
        deadline = time.time() + 30
        while True:
            with contextlib.suppress(OSError), socket.create_connection(("127.0.0.1", port), timeout=1):
                break
            if process.poll() is not None or time.time() > deadline:
                raise RuntimeError(f"redis-server did not start on 127.0.0.1:{port} (exit {process.poll()})")
            time.sleep(0.05)
        yield Redis("127.0.0.1", port)
    finally:
        process.terminate()
        try:
            process.wait(timeout=30)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait()
        shutil.rmtree(folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres() -> Iterator[Postgres]:
    """One cluster for the test session (each test that needs isolation creates its own database in it)."""
    with postgres_cluster() as cluster:
        yield cluster


@pytest.fixture(scope="session")
def redis() -> Iterator[Redis]:
    with redis_server() as server:
        yield server
