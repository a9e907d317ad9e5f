"""Helpers of the fault tests: a process holding a lock, and a digest of every table of a DuckDB file."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import duckdb

from cojudge_tests.conftest import REPO


def table_digests(db: Path) -> dict[str, tuple]:
    """Row count and an order-free content hash of every table."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        names = [
            r[0]
            for r in con.sql("select table_name from information_schema.tables where table_schema = 'main'").fetchall()
        ]
        return {name: con.sql(f'select count(*), sum(hash(t)) from main."{name}" t').fetchone() for name in names}
    finally:
        con.close()


HOLD = (
    "import sys; from pathlib import Path; from cojudge_assets.core.locks import hold\n"
    "run_id = (sys.argv[3:] or [None])[0]; brief = sys.argv[4:5] == ['brief']\n"
    "with hold(Path(sys.argv[1]), Path(sys.argv[2]), run_id=run_id or None, brief=brief):\n"
    "    print('held', flush=True); sys.stdin.read()\n"
)


class Holder:
    """A separate process holding a lock of core/locks.py until released: a run in progress, as far as the lock
    goes."""

    def __init__(self, target: Path, lock: Path, run_id: str | None = None, *, brief: bool = False):
        extra = [run_id or "", "brief"] if brief else [run_id] if run_id else []
        self.process = subprocess.Popen(
            [sys.executable, "-c", HOLD, str(target), str(lock), *extra],
            cwd=REPO,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
        )
        assert self.process.stdout.readline().strip() == "held"
        self.pid = self.process.pid

    def release(self) -> None:
        self.process.stdin.close()
        assert self.process.wait(timeout=60) == 0

    def kill(self) -> None:
        self.process.kill()
        self.process.wait(timeout=60)
