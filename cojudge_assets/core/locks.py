"""One writer at a time: an exclusive lock per DuckDB file and per DAGSTER_HOME.

DuckDB takes one writing process per file, and two processes that start on one
fresh DAGSTER_HOME both migrate its run database (two alembic heads: every
later run then fails at start-up). So ``cojudge materialize`` holds
``<file>.lock`` beside the DuckDB file and ``cojudge.lock`` inside the
DAGSTER_HOME for its whole run, and the IO manager holds the DuckDB lock for a
run launched from the Dagster UI.

The lock is ``fcntl.flock`` on that file (released by the kernel when the holder
dies, so a killed run leaves no stale lock); the file holds the holder's pid,
command and start time as JSON, so a refused run can name who holds it. Holding
is re-entrant within a process (the command holds the lock, then each of its
in-process Dagster runs initializes the IO manager), and a lock held by an
ancestor process (the command that started this one) counts as held. Processes
of one Dagster run (the multiprocess executor) wait for each other instead of
failing, since they record the same ``run_id``.
"""

from __future__ import annotations

import contextlib
import fcntl
import json
import os
import struct
import sys
import time
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict, Unpack

LOCK_SUFFIX = ".lock"
HOME_LOCK = "cojudge.lock"
POLL_S = 0.2

_held: dict[str, list] = {}  # lock path -> [fd, depth] for the locks this process holds


class LockHeld(RuntimeError):
    """Another process holds the lock; ``holder`` is what its lock file says (pid, command, since)."""

    def __init__(self, target: Path, lock: Path, holder: dict):
        self.target, self.lock, self.holder = target, lock, holder
        pid = holder.get("pid")
        who = f"pid {pid}" if pid else "another process (pid not recorded yet)"
        since = f", since {holder['since']}" if holder.get("since") else ""
        command = f" ({holder['command']})" if holder.get("command") else ""
        super().__init__(
            f"{target} is in use by {who}{command}{since}: one writer at a time "
            f"(lock {lock}); try again when it ends, or let cojudge materialize --wait for it"
        )


def duckdb_lock_path(database: str | Path) -> Path:
    """``<file>.lock`` beside the DuckDB file."""
    path = Path(database).resolve()
    return path.with_name(path.name + LOCK_SUFFIX)


def home_lock_path(home: str | Path) -> Path:
    """``cojudge.lock`` inside the DAGSTER_HOME (whose run state is git-ignored there)."""
    return Path(home).resolve() / HOME_LOCK


def read_holder(lock: Path) -> dict:
    """What the lock file says about its holder ({} if nothing readable)."""
    for _ in range(5):  # the holder truncates then writes: a reader may see the empty file in between
        try:
            text = lock.read_text(encoding="utf-8").strip()
        except OSError:
            return {}
        if text:
            try:
                value = json.loads(text)
                return value if isinstance(value, dict) else {}
            except json.JSONDecodeError:
                pass
        time.sleep(0.02)
    return {}


def _ancestors(pid: int) -> set[int]:
    """The pids of ``pid``'s parent, grandparent, ... (from /proc; empty where there is no /proc)."""
    found: set[int] = set()
    while pid > 1 and pid not in found:
        try:
            stat = Path(f"/proc/{pid}/stat").read_text()
        except OSError:
            break
        pid = int(stat.rsplit(")", 1)[1].split()[1])  # field 4, after the parenthesized command
        found.add(pid)
    return found


def _write_holder(fd: int, run_id: str | None, brief: bool = False) -> None:
    record = {
        "brief": brief,
        "pid": os.getpid(),
        "command": " ".join(Path(sys.argv[0]).name.split() + sys.argv[1:])[:300],
        "since": datetime.now(UTC).strftime("%Y-%m-%d %H:%M:%S UTC"),
        "run_id": run_id,
    }
    os.ftruncate(fd, 0)
    os.pwrite(fd, json.dumps(record).encode(), 0)


@contextlib.contextmanager
def hold(
    target: str | Path,
    lock: Path,
    *,
    wait_s: float = 0.0,
    run_id: str | None = None,
    echo=None,
    brief: bool = False,
    wait_brief_s: float = 0.0,
) -> Iterator[None]:
    """Hold ``lock`` (the lock of ``target``) for the block, or raise :class:`LockHeld` naming its holder.

    ``wait_s``: how long to wait for a holder to finish (0: fail at once; ``float('inf')``: no bound); ``echo``:
    told once what is waited for, when a holder makes this wait. ``brief``: this hold lasts a moment (a sensor's
    read), which the lock file records; ``wait_brief_s``: how long to wait for such a holder (a run waits for a
    sensor's read rather than fail, and still fails at once beside a run or the command).
    """
    key = str(lock)
    if key in _held:
        _held[key][1] += 1
        try:
            yield
        finally:
            _held[key][1] -= 1
        return
    lock.parent.mkdir(parents=True, exist_ok=True)
    fd = os.open(lock, os.O_RDWR | os.O_CREAT, 0o644)
    try:
        if not _acquire(fd, Path(target), lock, wait_s=wait_s, run_id=run_id, echo=echo, wait_brief_s=wait_brief_s):
            os.close(fd)
            fd = -1
            yield  # the command that started this process holds it for us
            return
        _write_holder(fd, run_id, brief)
        _held[key] = [fd, 1]
        try:
            yield
        finally:
            del _held[key]
            os.ftruncate(fd, 0)
            fcntl.flock(fd, fcntl.LOCK_UN)
    finally:
        if fd >= 0:
            os.close(fd)


def _acquire(
    fd: int, target: Path, lock: Path, *, wait_s: float, run_id: str | None, echo=None, wait_brief_s: float = 0.0
) -> bool:
    """Lock ``fd``: True when locked, False when an ancestor process holds it; LockHeld past ``wait_s`` (past
    ``wait_brief_s`` when that is longer and the holder holds it briefly)."""
    deadline = time.monotonic() + wait_s
    brief_deadline = time.monotonic() + wait_brief_s
    told = False
    while True:
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return True
        except BlockingIOError:
            pass
        holder = read_holder(lock)
        if holder.get("pid") in _ancestors(os.getpid()):
            return False
        same_run = run_id is not None and holder.get("run_id") == run_id
        waiting_for_brief = holder.get("brief") is True and time.monotonic() < brief_deadline
        if not same_run and not waiting_for_brief and time.monotonic() >= deadline:
            raise LockHeld(target, lock, holder)
        if echo is not None and not told:
            told = True
            pid = holder.get("pid")
            who = f"pid {pid}" if pid else "another process"
            echo(f"waiting for {target}: in use by {who} ({holder.get('command') or 'command unknown'}; lock {lock})")
        time.sleep(POLL_S)


class HoldOptions(TypedDict, total=False):
    """The keywords of :func:`hold` after the lock, passed through by :func:`hold_duckdb`."""

    wait_s: float
    run_id: str | None
    echo: Callable[[str], object] | None
    brief: bool
    wait_brief_s: float


@contextlib.contextmanager
def hold_duckdb(database: str | Path, **options: Unpack[HoldOptions]) -> Iterator[None]:
    """The DuckDB file's lock (nothing for an in-memory database); ``options`` as :func:`hold`'s keywords."""
    if str(database) in ("", ":memory:") or str(database).startswith(("md:", "motherduck:")):
        yield
        return
    with hold(database, duckdb_lock_path(database), **options):
        yield


# --- the DuckDB file itself: who has it open -------------------------------------------------------------------
#
# The lock above orders cojudge's own runs. Any other process (a notebook, the DuckDB CLI, a BI tool) opens the
# file with DuckDB alone, and DuckDB then takes a POSIX record lock (fcntl) on the whole file: a read lock for a
# read-only connection, a write lock for a read-write one. A writer cannot open the file while any other process
# holds either, and dagster-duckdb retries its connect for about two minutes before failing. So a run asks the
# kernel first (F_GETLK: which process holds a lock that conflicts with a write lock), which takes microseconds,
# changes nothing and names the holder's pid.

_FLOCK = "hhqqi"  # struct flock on Linux: l_type, l_whence, l_start, l_len, l_pid (native alignment)


@dataclass(frozen=True)
class FileHolder:
    """A process holding a record lock on a DuckDB file: its pid (0: in another pid namespace), the lock's mode
    (``read-only`` or ``read-write``) and its command line, where /proc shows it."""

    pid: int
    mode: str
    command: str = ""

    def describe(self) -> str:
        who = f"pid {self.pid}" if self.pid > 0 else "a process of another pid namespace"
        command = f" ({self.command})" if self.command else ""
        return f"{who}{command} holds a {self.mode} connection"


class DatabaseBusy(RuntimeError):
    """Another process has the DuckDB file open, in any mode: no writer can open it."""

    def __init__(self, database: Path, holder: FileHolder):
        self.database, self.holder = database, holder
        super().__init__(
            f"{database} is open in another process: {holder.describe()}, and DuckDB lets no writer in while "
            f"any other process has the file open; close that connection, or let cojudge materialize --wait for it"
        )


def _command(pid: int) -> str:
    try:
        raw = Path(f"/proc/{pid}/cmdline").read_bytes()
    except OSError:
        return ""
    return " ".join(raw.replace(b"\0", b" ").decode(errors="replace").split())[:200]


def duckdb_holder(database: str | Path) -> FileHolder | None:
    """The process that holds a lock on the DuckDB file which a writer would conflict with (None: the file is free,
    absent, or not a local file). Locks of this process itself are never reported (POSIX record locks are per
    process). Never opens the file with DuckDB and never changes it."""
    text = str(database)
    if text in ("", ":memory:") or text.startswith(("md:", "motherduck:")):
        return None
    try:
        fd = os.open(text, os.O_RDONLY)
    except OSError:
        return None
    try:
        query = struct.pack(_FLOCK, fcntl.F_WRLCK, os.SEEK_SET, 0, 0, 0)
        query += b"\0" * (32 - len(query))
        answer = fcntl.fcntl(fd, fcntl.F_GETLK, query)
    except OSError:
        return None
    finally:
        os.close(fd)
    kind, _, _, _, pid = struct.unpack(_FLOCK, answer[: struct.calcsize(_FLOCK)])
    if kind == fcntl.F_UNLCK:
        return None
    return FileHolder(pid, "read-write" if kind == fcntl.F_WRLCK else "read-only", _command(pid) if pid > 0 else "")


def wait_for_duckdb(database: str | Path, *, wait_s: float = 0.0, echo=None) -> None:
    """Return once no other process has the DuckDB file open; raise :class:`DatabaseBusy` naming the holder when
    one does and ``wait_s`` is 0 (or has passed). While waiting, ``echo`` is told what is waited for, once per
    holder."""
    deadline = time.monotonic() + wait_s
    told: FileHolder | None = None
    while True:
        holder = duckdb_holder(database)
        if holder is None:
            if told is not None and echo is not None:
                echo(f"{database}: free now, starting")
            return
        if time.monotonic() >= deadline:
            raise DatabaseBusy(Path(database), holder)
        if holder != told and echo is not None:
            echo(f"waiting for {database}: {holder.describe()} (Ctrl-C to stop waiting)")
        told = holder
        time.sleep(POLL_S)
