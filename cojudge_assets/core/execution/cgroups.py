"""One control group per sandboxed run: memory, processes and CPU time counted for the whole run.

Per-process limits (``prlimit``) let a program escape by forking: sixteen children of 150 MB each
pass a 256 MB address-space limit, and the CPU time of children it never reaps is never reported.
A control group counts every process of the run together, whatever it forks, and can kill them all
at once. Which hierarchy offers what is found at run time, once per process, from
``/proc/self/cgroup`` and ``/proc/self/mountinfo``:

* cgroup v2 (a ``cgroup2`` mount): ``cpu.stat`` and ``cgroup.kill`` in every group; ``memory`` and
  ``pids`` where the parent group can enable them for its children;
* cgroup v1: the ``memory``, ``pids``, ``cpuacct`` and ``freezer`` controllers, each its own mount.

Each controller is taken from v2 if v2 offers it, else from a writable v1 mount, else it is absent
(the run then keeps only the per-process limits). Run groups are created inside this process's own
group in each hierarchy (so any limit above it still applies) as ``cojudge-<pid>-<n>``, and removed
after the run; groups a crashed judge process left behind are removed at the next probe.
``COJUDGE_CGROUPS`` (read when first probed): ``off`` turns them off, ``v1`` or ``v2`` uses that
hierarchy alone.
"""

from __future__ import annotations

import itertools
import os
import re
import resource
import signal
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

_names = itertools.count()
_RUN_GROUP = re.compile(r"cojudge-(\d+)-\d+")


@dataclass(frozen=True)
class Hierarchy:
    """A folder of a cgroup hierarchy where run groups are created."""

    version: str  # "v1" or "v2"
    parent: Path


@dataclass(frozen=True)
class CgroupSupport:
    """Where each controller a run uses comes from (None: not available here)."""

    memory: Hierarchy | None = None
    pids: Hierarchy | None = None
    cpu: Hierarchy | None = None  # v2 cpu.stat or v1 cpuacct
    kill: Hierarchy | None = None  # v2 cgroup.kill or v1 freezer
    reason: str = ""  # why a controller is missing, for the isolation record

    @property
    def version(self) -> str:
        """'v2', 'v1', 'v1+v2' (each controller from where it is offered) or 'none'."""
        used = {h.version for h in (self.memory, self.pids, self.cpu, self.kill) if h is not None}
        return "+".join(sorted(used)) or "none"

    def folders(self) -> list[Hierarchy]:
        """The distinct parent folders the run's groups are created in."""
        seen: dict[Path, Hierarchy] = {}
        for h in (self.memory, self.pids, self.cpu, self.kill):
            if h is not None:
                seen.setdefault(h.parent, h)
        return list(seen.values())


def _unescape(field: str) -> str:
    return re.sub(r"\\([0-7]{3})", lambda m: chr(int(m.group(1), 8)), field)


def _own_groups() -> dict[str, str]:
    """Controller name ('' for v2) -> this process's group path, from /proc/self/cgroup."""
    groups: dict[str, str] = {}
    for line in Path("/proc/self/cgroup").read_text().splitlines():
        parts = line.split(":", 2)
        if len(parts) != 3:
            continue
        _, controllers, path = parts
        for name in controllers.split(",") if controllers else [""]:
            groups[name] = path
    return groups


def _mounts() -> list[tuple[str, str, str, set[str]]]:
    """(mount point, root inside the hierarchy, fs type, super options) of each cgroup mount."""
    mounts = []
    for line in Path("/proc/self/mountinfo").read_text().splitlines():
        before, _, after = line.partition(" - ")
        fields, tail = before.split(), after.split()
        if len(fields) < 5 or len(tail) < 3 or tail[0] not in ("cgroup", "cgroup2"):
            continue
        mounts.append((_unescape(fields[4]), _unescape(fields[3]), tail[0], set(tail[2].split(","))))
    return mounts


def _folder(mount_point: str, mount_root: str, own: str) -> Path | None:
    """This process's group folder under a mount, or None when the mount does not show it."""
    root = mount_root.rstrip("/")
    if own != root and not own.startswith(root + "/"):
        return None
    folder = Path(mount_point) / own[len(root) :].lstrip("/")
    return folder if folder.is_dir() else None


def _can_create(parent: Path, needs: str) -> bool:
    """A run group can be made in ``parent`` and has the file ``needs``."""
    probe = parent / f"cojudge-probe-{os.getpid()}-{next(_names)}"
    try:
        probe.mkdir()
    except OSError:
        return False
    try:
        return (probe / needs).exists()
    finally:
        try:
            probe.rmdir()
        except OSError:
            pass


def _enable_v2(parent: Path, controller: str) -> bool:
    """``controller`` is (or could be made) enabled for the children of the v2 group ``parent``."""
    try:
        if controller not in (parent / "cgroup.controllers").read_text().split():
            return False
        if controller not in (parent / "cgroup.subtree_control").read_text().split():
            # refused (EBUSY) when ``parent`` holds processes and is not the root: then v1 or nothing
            (parent / "cgroup.subtree_control").write_text(f"+{controller}")
    except OSError:
        return False
    return True


def probe_support() -> CgroupSupport:
    """What this machine offers this process, found by creating and removing a probe group."""
    choice = os.environ.get("COJUDGE_CGROUPS", "").lower()
    if choice in ("off", "0", "no", "false"):
        return CgroupSupport(reason="turned off by COJUDGE_CGROUPS")
    if os.geteuid() != 0:
        return CgroupSupport(reason="not root: no group can be created")
    try:
        own, mounts = _own_groups(), _mounts()
    except OSError as exc:
        return CgroupSupport(reason=f"cannot read /proc/self/cgroup or mountinfo: {exc}")
    v2: Path | None = None
    v1: dict[str, Path] = {}
    for point, root, fstype, options in mounts:
        if fstype == "cgroup2" and "" in own and v2 is None and choice != "v1":
            folder = _folder(point, root, own[""])
            if folder is not None and _can_create(folder, "cgroup.kill"):
                v2 = folder
        elif fstype == "cgroup" and choice != "v2":
            for controller in ("memory", "pids", "cpuacct", "freezer"):
                if controller in options and controller in own and controller not in v1:
                    folder = _folder(point, root, own[controller])
                    needs = {
                        "memory": "memory.limit_in_bytes",
                        "pids": "pids.max",
                        "cpuacct": "cpuacct.usage",
                        "freezer": "freezer.state",
                    }[controller]
                    if folder is not None and _can_create(folder, needs):
                        v1[controller] = folder

    def pick(v2_controller: str | None, v1_controller: str) -> Hierarchy | None:
        if v2 is not None and (v2_controller is None or _enable_v2(v2, v2_controller)):
            return Hierarchy("v2", v2)
        return Hierarchy("v1", v1[v1_controller]) if v1_controller in v1 else None

    support = CgroupSupport(
        memory=pick("memory", "memory"),
        pids=pick("pids", "pids"),
        cpu=pick(None, "cpuacct"),
        kill=pick(None, "freezer"),
    )
    missing = [name for name in ("memory", "pids", "cpu", "kill") if getattr(support, name) is None]
    if missing:
        only = f" (COJUDGE_CGROUPS={choice})" if choice in ("v1", "v2") else ""
        support = CgroupSupport(
            support.memory,
            support.pids,
            support.cpu,
            support.kill,
            reason=f"no writable cgroup offers {', '.join(missing)}{only}",
        )
    for h in support.folders():
        _remove_stale(h.parent)
    return support


@lru_cache(maxsize=1)
def cgroup_support() -> CgroupSupport:
    """:func:`probe_support`, once per process (``cgroup_support.cache_clear()`` probes again)."""
    return probe_support()


def _pid_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        return True
    return True


def _remove_stale(parent: Path) -> None:
    """Remove run groups whose judge process is gone (it was killed mid-run), killing what is left in them."""
    try:
        entries = list(parent.iterdir())
    except OSError:
        return
    for entry in entries:
        match = _RUN_GROUP.fullmatch(entry.name)
        if match and entry.is_dir() and not _pid_alive(int(match.group(1))):
            _kill_members([entry])
            _rmdir(entry, deadline=time.monotonic() + 2)


def _members(folder: Path) -> list[int]:
    try:
        return [int(p) for p in (folder / "cgroup.procs").read_text().split()]
    except (OSError, ValueError):
        return []


def _kill_members(folders: list[Path]) -> None:
    for folder in folders:
        for pid in _members(folder):
            try:
                os.kill(pid, signal.SIGKILL)
            except ProcessLookupError:
                pass


def _rmdir(folder: Path, *, deadline: float) -> bool:
    delay = 0.001
    while True:
        try:
            folder.rmdir()
            return True
        except FileNotFoundError:
            return True
        except OSError:  # EBUSY: a killed process is not gone yet
            if time.monotonic() > deadline:
                return False
            _kill_members([folder])
            time.sleep(delay)
            delay = min(delay * 2, 0.05)


FULL_MARGIN_BYTES = 32 << 20  # with the larger of it and an eighth of the limit: memory_full's slack


def _read_key(path: Path, key: str) -> int | None:
    """The value of ``key`` in a flat-keyed cgroup file ("oom_kill 3"), or None."""
    try:
        for line in path.read_text().splitlines():
            name, _, value = line.partition(" ")
            if name == key:
                return int(value)
    except (OSError, ValueError):
        return None
    return None


class RunCgroup:
    """The groups of one run (one per hierarchy folder used), made with its limits.

    Use: ``create()``; start the run with ``join_files()`` written with its pid before anything of
    the run executes; read ``cpu_s()``/``oom_kills()`` after ``kill_all()`` and ``wait_empty()``;
    ``remove()`` at the end.
    """

    def __init__(self, support: CgroupSupport, *, memory_bytes: int, pids_max: int):
        self.support = support
        self.memory_bytes, self.pids_max = memory_bytes, pids_max
        self.name = f"cojudge-{os.getpid()}-{next(_names)}"
        self.groups = {h.parent: h.parent / self.name for h in support.folders()}
        self._lock = threading.Lock()

    def _group(self, hierarchy: Hierarchy | None) -> Path | None:
        return self.groups[hierarchy.parent] if hierarchy is not None else None

    def create(self) -> None:
        """Make the groups and set the limits; OSError (the caller's sandbox error) if that fails."""
        made = []
        try:
            for group in self.groups.values():
                group.mkdir()
                made.append(group)
            memory, pids = self._group(self.support.memory), self._group(self.support.pids)
            if memory is not None and self.support.memory is not None:
                if self.support.memory.version == "v2":
                    (memory / "memory.max").write_text(str(self.memory_bytes))
                    if (memory / "memory.swap.max").exists():
                        (memory / "memory.swap.max").write_text("0")
                    (memory / "memory.oom.group").write_text("1")  # a kill ends the whole run, not one process
                else:
                    (memory / "memory.limit_in_bytes").write_text(str(self.memory_bytes))
                    if (memory / "memory.memsw.limit_in_bytes").exists():  # memory + swap = memory: no swap
                        (memory / "memory.memsw.limit_in_bytes").write_text(str(self.memory_bytes))
            if pids is not None:
                (pids / "pids.max").write_text(str(self.pids_max))
        except OSError:
            for group in made:
                _rmdir(group, deadline=time.monotonic() + 1)
            raise

    def join_files(self) -> list[str]:
        """The files a process writes its pid to, to enter every group of the run."""
        return [str(group / "cgroup.procs") for group in self.groups.values()]

    def cpu_s(self) -> float | None:
        """CPU seconds (user + system) of every process that ran in the group, reaped or not."""
        group = self._group(self.support.cpu)
        if group is None or self.support.cpu is None:
            return None
        if self.support.cpu.version == "v2":
            usec = _read_key(group / "cpu.stat", "usage_usec")
            return None if usec is None else usec / 1e6
        try:
            return int((group / "cpuacct.usage").read_text()) / 1e9
        except (OSError, ValueError):
            return None

    def oom_kills(self) -> int:
        """How many processes of the run the memory limit killed."""
        group = self._group(self.support.memory)
        if group is None or self.support.memory is None:
            return 0
        name = "memory.events" if self.support.memory.version == "v2" else "memory.oom_control"
        return _read_key(group / name, "oom_kill") or 0

    def memory_peak_bytes(self) -> int | None:
        group = self._group(self.support.memory)
        if group is None or self.support.memory is None:
            return None
        name = "memory.peak" if self.support.memory.version == "v2" else "memory.max_usage_in_bytes"
        try:
            return int((group / name).read_text())
        except (OSError, ValueError):
            return None

    def memory_full(self) -> bool:
        """The run reached its memory limit and stayed there: its own memory (anonymous and tmpfs pages, which
        cannot be swapped here) fills all but ``FULL_MARGIN`` of it, or it has read back evicted file pages worth a
        sixteenth of the limit (the kernel's ``workingset_refault_file``). At that point the kernel can free only
        file pages (the program's code, the JVM's modules), which the program reads back at once: it can spend
        seconds of CPU in reclaim before the OOM killer acts, and a run stopped then for its CPU was stopped by its
        memory. A run that reached the limit through page cache it reads once (a large input) is neither."""
        group = self._group(self.support.memory)
        if group is None or self.support.memory is None:
            return False
        stat = group / "memory.stat"
        if self.support.memory.version == "v2":
            reached = _read_key(group / "memory.events", "max") or 0
            own = sum(_read_key(stat, key) or 0 for key in ("anon", "shmem"))
            refaulted = _read_key(stat, "workingset_refault_file") or 0
        else:
            try:
                reached = int((group / "memory.failcnt").read_text())
            except (OSError, ValueError):
                reached = 0
            own = sum(_read_key(stat, key) or 0 for key in ("total_rss", "total_shmem"))
            refaulted = _read_key(stat, "total_workingset_refault_file") or 0
        full = own >= self.memory_bytes - max(FULL_MARGIN_BYTES, self.memory_bytes // 8)
        thrashing = refaulted * resource.getpagesize() >= self.memory_bytes // 16
        return reached > 0 and (full or thrashing)

    def pids_limit_hits(self) -> int:
        """How many forks the process limit refused."""
        group = self._group(self.support.pids)
        return (_read_key(group / "pids.events", "max") or 0) if group is not None else 0

    def kill_all(self) -> None:
        """SIGKILL every process of the run, including ones forked while killing (a fork bomb)."""
        with self._lock:
            kill = self.support.kill
            group = self._group(kill)
            if kill is not None and group is not None and kill.version == "v2":
                try:
                    (group / "cgroup.kill").write_text("1")
                    return
                except OSError:
                    pass
            if kill is not None and group is not None:  # v1: freeze, kill the frozen, thaw so they die
                try:
                    (group / "freezer.state").write_text("FROZEN")
                    deadline = time.monotonic() + 1
                    while (group / "freezer.state").read_text().strip() != "FROZEN" and time.monotonic() < deadline:
                        time.sleep(0.001)
                    _kill_members(list(self.groups.values()))
                    (group / "freezer.state").write_text("THAWED")
                    return
                except OSError:
                    pass
            _kill_members(list(self.groups.values()))

    def wait_empty(self, timeout: float = 5.0) -> bool:
        """Kill until no process is left in any group of the run (True), or the timeout."""
        deadline = time.monotonic() + timeout
        delay = 0.0005
        while any(_members(group) for group in self.groups.values()):
            if time.monotonic() > deadline:
                return False
            self.kill_all()
            time.sleep(delay)
            delay = min(delay * 2, 0.05)
        return True

    def remove(self) -> bool:
        """Remove the groups (killing anything left first); True when all are gone."""
        self.wait_empty()
        deadline = time.monotonic() + 5
        return all([_rmdir(group, deadline=deadline) for group in self.groups.values()])
