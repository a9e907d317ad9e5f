"""Running untrusted programs (submissions, mutants, their compilers) under limits.

Every untrusted process runs through :func:`run_sandboxed`. The layers, from the
outside in:

* a dedicated unprivileged uid per run when cojudge runs as root (so the
  per-user process limit applies to this run alone and the program can write
  nowhere that uid does not own);
* POSIX resource limits set before ``exec``: CPU seconds, stack, file size (which
  also caps stdout and stderr, written to files), open files, processes, no core
  dumps, and the address space where no memory cgroup bounds the run
  (:func:`per_process_address_space`: under it, threads could not start);
* bubblewrap (``bwrap``) namespaces where available: no network (a new, empty
  network namespace), its own pid namespace (killing the run kills every
  process it forked), a read-only view of only the system directories
  (``/usr``, ``/etc``, the interpreter's prefix), the program's own directory
  mounted at ``/box``, a small size-capped ``/tmp`` and ``/dev/shm`` of its own,
  and nothing else writable (the root and ``/dev`` are remounted read-only);
  nothing else of the host, so no hidden tests, no corpus, no home directory;
* a control group per run where the machine offers one (core/execution/cgroups.py): the
  memory of the whole run (every process it forks, the JVM's off-heap memory,
  its tmpfs files) under one limit with no swap, a process count, the CPU time
  of the whole tree (children never reaped included), read at the end and
  watched during the run, and a kill of everything left when it ends;
* a seccomp filter (core/execution/syscall_filter.py): ptrace, mount, unshare, setns, bpf, keyctl and the other calls a
  contest program never needs fail with EPERM, namespace flags of clone too, other ABIs are killed; given to
  bubblewrap (``--seccomp``) or, without it, installed by the runner itself before the program starts;
* a clean environment: only ``PATH``, ``HOME``, ``LANG``, never a secret;
* a wall-clock timer that kills the whole process group at the limit.

Without bubblewrap (a machine where it is not installed) the run still gets
the uid, the limits, the clean environment and, as root, an empty network
namespace through ``unshare(2)``, and the seccomp filter; the filesystem view is then the uid's normal
view, and what the run leaves in the host's ``/tmp``, ``/var/tmp`` and
``/dev/shm`` is removed after it. Without control groups the per-process limits remain. :func:`isolation_level`
says which mode is in force and :func:`isolation_record` which limits; each
:class:`RunResult` carries its record, and the contest judge records it.

The runner that reports how the program ended (native/cojudge_runner.c) is out of the program's reach: it makes
itself non-dumpable (its ``/proc/<pid>/mem`` and ``/proc/<pid>/fd`` are closed to the program, which has the same
uid and no capabilities), hands the program no descriptor but 0, 1 and 2, and under bubblewrap is the pid
namespace's process 1 (no bubblewrap init beside it, which ran outside the seccomp filter and whose memory was
writable), which takes no signal from inside. A program that wrote ``/proc/<runner>/mem`` forged its report before.

A run always ends with a result unless the sandbox itself could not start
(:class:`SandboxError`): without bubblewrap, a program that kills its runner (``kill(getppid(), 9)``,
``kill(-1, 9)``) gives a result with ``runner_lost`` set.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import math
import os
import resource
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import cache, lru_cache
from pathlib import Path

from cojudge_assets.core.execution.cgroups import CgroupSupport, RunCgroup, cgroup_support
from cojudge_assets.core.execution.syscall_filter import FilterSupport, filter_pipe, filter_support

BOX = "/box"  # where the program's directory appears inside the sandbox

_UID_BASE = 1_100_000  # dedicated uids for runs live above every real account
_uid_counter = itertools.count()
_uid_lock = threading.Lock()


@dataclass(frozen=True)
class Limits:
    """Resource limits for one sandboxed process tree."""

    cpu_s: float = 2.0
    wall_s: float = 6.0
    memory_mb: int = 256
    max_procs: int = 64
    output_bytes: int = 64 * 1024 * 1024
    tmp_bytes: int = 64 * 1024 * 1024
    max_open_files: int = 64
    stack_mb: int | None = None  # default: the memory limit, as contest judges do
    address_space: bool = True  # False for runtimes that reserve far more than they use (the JVM)
    run_memory_mb: int | None = None  # the whole run's memory (cgroup); default memory_mb + RUN_MEMORY_SLACK_MB
    shm_bytes: int = 64 * 1024 * 1024  # the run's own /dev/shm (bubblewrap)

    @property
    def cgroup_memory_bytes(self) -> int:
        return (self.run_memory_mb or self.memory_mb + RUN_MEMORY_SLACK_MB) * 1024 * 1024

    @property
    def rlimit_cpu_s(self) -> int:
        """RLIMIT_CPU's soft limit (whole seconds; the hard one is a second more): a backstop above the limit.

        The kernel checks RLIMIT_CPU against a count sampled at each scheduler tick, which on a busy machine ran
        up to 19% ahead of the CPU time the scheduler measured (and the run group and wait4 report): at the limit
        itself it stopped a 2 s program at 1.68-1.88 s measured, "killed at the CPU limit (1.81s used, limit
        2.0s)". So the limit is enforced on the measured figure (the run group's, watched during the run; or the
        figure after it ended) and RLIMIT_CPU only stops what gets a quarter (at least a second) past it."""
        return max(math.ceil(self.cpu_s * 1.25), math.ceil(self.cpu_s) + 1)

    @property
    def cgroup_pids(self) -> int:
        # bwrap, its pid-namespace init and the runner are counted too (and setpriv/prlimit before they exec)
        return self.max_procs + 4


# the sandbox's own processes (bwrap, its init, the runner) and the kernel's page tables live in the run's group
RUN_MEMORY_SLACK_MB = 32
CPU_POLL_S = 0.1  # how often the run group's CPU time is read during a run


@dataclass(frozen=True)
class Isolation:
    """Which isolation a run had: the mode, the cgroup hierarchy used, and how each limit was enforced."""

    mode: str  # "bwrap" (namespaces + uid + limits), "uid-only" (root, no bwrap), "rlimits-only" (neither)
    cgroup: str  # "v2", "v1", "v1+v2" or "none"
    limits: dict[str, str]
    seccomp: bool = False  # the run had the seccomp filter (limits["syscalls"] says which, or why not)

    def __str__(self) -> str:
        return f"{self.mode} + seccomp, cgroup {self.cgroup}" if self.seccomp else f"{self.mode}, cgroup {self.cgroup}"


@dataclass
class RunResult:
    """What one sandboxed run did."""

    exit_code: int | None  # the program's exit status, None when killed by a signal
    signal: int | None  # the signal that ended it, if any
    cpu_s: float  # user + system CPU: every process of the run (cgroup), else the tree the runner reaped
    wall_s: float
    wall_killed: bool  # the wall-clock timer fired
    stdout_path: Path
    stderr_path: Path
    runner_lost: bool = False  # the runner was killed while the program ran: no exit status (see cpu_s)
    cpu_killed: bool = False  # the run group's CPU time passed the limit and the run was killed
    oom_kills: int = 0  # processes the run group's memory limit killed
    memory_full: bool = False  # at the CPU kill, the run's own memory filled its limit (RunCgroup.memory_full)
    memory_peak_bytes: int | None = None  # the run group's peak (None without a memory cgroup)
    pids_limit_hits: int = 0  # forks the run group's process limit refused
    cpu_source: str = "rusage"  # "cgroup": every process of the run; "rusage": the ones reaped
    leftover: bool = False  # some process of the run could not be killed and its group removed
    isolation: Isolation | None = None
    cpu_limit_s: float | None = None  # the run's CPU limit (Limits.cpu_s)

    @property
    def cpu_limit_hit(self) -> bool:
        """The run was stopped for its CPU time: by the watchdog on the run group's figure, by RLIMIT_CPU's SIGXCPU,
        or by a SIGKILL after it used at least the limit (RLIMIT_CPU's hard limit; a SIGKILL before the limit is
        the program's own doing, or the memory limit's, not a CPU limit)."""
        if self.wall_killed or self.memory_limit_hit:
            return False
        if self.cpu_killed or self.signal == signal.SIGXCPU:
            return True
        return self.signal == signal.SIGKILL and self.cpu_limit_s is not None and self.cpu_s >= self.cpu_limit_s

    @property
    def memory_limit_hit(self) -> bool:
        """Killed by the memory limit: the OOM killer, or the CPU limit while the program's own memory filled the
        run's (the kernel was reclaiming at the limit rather than killing)."""
        return self.oom_kills > 0 or self.memory_full

    @property
    def file_size_limit_hit(self) -> bool:
        """The program was killed for writing past RLIMIT_FSIZE: its stdout or stderr (the output limit) or a
        file of its own (see :meth:`output_limit_hit`)."""
        return self.signal == signal.SIGXFSZ

    def output_limit_hit(self, limits: Limits) -> bool:
        """The file-size kill came from its stdout or stderr reaching the limit, not from a file it wrote."""
        if not self.file_size_limit_hit:
            return False
        sizes = []
        for path in (self.stdout_path, self.stderr_path):
            try:
                sizes.append(path.stat().st_size)
            except OSError:
                sizes.append(0)
        return max(sizes) >= limits.output_bytes

    @property
    def ok(self) -> bool:
        return (
            self.exit_code == 0
            and self.signal is None
            and not self.wall_killed
            and not self.runner_lost
            and not self.cpu_killed
            and not self.memory_limit_hit
        )

    def stderr_text(self, limit: int = 4000) -> str:
        try:
            with open(self.stderr_path, "rb") as f:
                return f.read(limit).decode("utf-8", "replace")
        except FileNotFoundError:
            return ""


@lru_cache(maxsize=1)
def bwrap_path() -> str | None:
    """The bubblewrap binary if it is installed and can create namespaces here.

    Probed as the runs will use it: as a dedicated unprivileged uid when cojudge
    runs as root (that needs unprivileged user namespaces).
    """
    path = shutil.which("bwrap")
    if path is None:
        return None

    as_run_uid = _as_uid(_UID_BASE) if os.geteuid() == 0 else []
    probe = subprocess.run(
        [*as_run_uid, path, *BWRAP_NAMESPACES, "--die-with-parent", *_system_binds(), "true"],
        capture_output=True,
        timeout=20,
        cwd="/",
    )
    return path if probe.returncode == 0 else None


def isolation_level() -> str:
    """'bwrap' (namespaces + limits + uid), 'uid-only' (limits + uid + netns, as root without bubblewrap) or
    'rlimits-only' (limits alone: not root and no bubblewrap)."""
    if bwrap_path():
        return "bwrap"
    return "uid-only" if os.geteuid() == 0 else "rlimits-only"


def isolation_record(
    limits: Limits, support: CgroupSupport | None = None, syscalls: FilterSupport | None = None
) -> Isolation:
    """How each of ``limits`` is enforced on this machine (the same for every run with these limits)."""
    support = support if support is not None else cgroup_support()
    syscalls = syscalls if syscalls is not None else filter_support()
    mode = isolation_level()
    mib = 1024 * 1024
    record: dict[str, str] = {}

    def both(cgroup: str | None, rlimit: str | None) -> str:
        return " + ".join(x for x in (cgroup, rlimit) if x) or "none"

    record["memory"] = both(
        f"cgroup {support.memory.version}: {limits.cgroup_memory_bytes // mib} MiB for the whole run, no swap"
        if support.memory
        else None,
        f"RLIMIT_AS {limits.memory_mb} MiB per process"
        if per_process_address_space(limits, support.memory is not None)
        else None,
    )
    record["processes"] = both(
        f"cgroup {support.pids.version}: {limits.cgroup_pids} tasks" if support.pids else None,
        f"RLIMIT_NPROC {limits.max_procs + 2} for the run's uid" if mode != "rlimits-only" else None,
    )
    record["cpu"] = both(
        f"cgroup {support.cpu.version}: the whole tree, watched and read at the end" if support.cpu else None,
        f"RLIMIT_CPU {limits.rlimit_cpu_s} s per process (reaped children counted; a backstop above the "
        f"{limits.cpu_s:g} s limit: the kernel counts it in ticks)",
    )
    record["kill"] = (
        f"cgroup {support.kill.version} ({'cgroup.kill' if support.kill.version == 'v2' else 'freezer'})"
        if support.kill
        else "process group"
    ) + (" + pid namespace" if mode == "bwrap" else "")
    record["wall"] = f"{limits.wall_s:g} s"
    record["files"] = (
        f"/tmp {limits.tmp_bytes // mib} MiB and /dev/shm {limits.shm_bytes // mib} MiB of its own; the rest read-only"
        if mode == "bwrap"
        else "the uid's own view of the host"
        if mode == "uid-only"
        else "this user's view of the host"
    )
    record["output"] = f"RLIMIT_FSIZE {limits.output_bytes // mib} MiB"
    record["network"] = "none (empty network namespace)" if mode != "rlimits-only" else "the host's"
    record["syscalls"] = syscalls.describe()
    if support.reason:
        record["cgroup_note"] = support.reason
    return Isolation(mode, support.version, record, seccomp=syscalls.bpf is not None)


def _next_uid() -> int | None:
    if os.geteuid() != 0:
        return None
    with _uid_lock:
        slot = next(_uid_counter) % 4096
    # pid keeps concurrent judge processes apart; slot keeps threads of one process apart
    return _UID_BASE + (os.getpid() % 65536) * 4096 + slot


def _system_binds() -> list[str]:
    """Read-only binds for the system directories a compiler or runtime needs."""
    args: list[str] = []
    for top in ("/usr", "/etc", "/bin", "/sbin", "/lib", "/lib32", "/lib64", "/libx32", "/opt"):
        if os.path.islink(top):
            args += ["--symlink", os.readlink(top), top]
        elif os.path.isdir(top):
            args += ["--ro-bind", top, top]
    return args


BWRAP_NAMESPACES = (
    "--unshare-all",  # user, ipc, pid, net, uts, cgroup
    "--unshare-user",  # explicit: --disable-userns needs it
    "--disable-userns",  # no user namespace inside, even where the seccomp filter is off
    # the runner is the pid namespace's process 1: no bubblewrap init beside it, whose memory (writable by the
    # program, same uid, and outside the seccomp filter bubblewrap applies at the exec) would be the way round the
    # non-dumpable runner; and process 1 of a namespace takes no signal from inside that it has no handler for
    "--as-pid-1",
)
"""Bubblewrap's namespace options, for the probe and every run (bubblewrap 0.8 or later: --disable-userns)."""


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (not the program's fault)."""


def _bwrap_argv(
    argv: list[str],
    box: Path,
    *,
    box_writable: bool,
    tmp_bytes: int,
    shm_bytes: int,
    runner: str,
    extra_ro_binds: tuple[str, ...],
    ro_mounts: tuple[tuple[str, str], ...] = (),
    seccomp: bool = False,
) -> list[str]:
    path = bwrap_path()
    assert path is not None
    extra = [a for p in extra_ro_binds for a in ("--ro-bind", p, p)]
    extra += [a for source, target in ro_mounts for a in ("--ro-bind", source, target)]
    if seccomp:  # the filter's descriptor is filled in when the run starts; bwrap applies it just before the exec
        extra += ["--seccomp", "{seccomp}"]
    return [
        path,
        *BWRAP_NAMESPACES,
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        *_system_binds(),
        *extra,
        "--ro-bind",
        runner,
        RUNNER_IN_BOX,
        "--proc",
        "/proc",
        "--dev",
        "/dev",
        # bwrap's /dev and its root are tmpfs the run could fill without bound: a sized /dev/shm of its
        # own, and both made read-only
        "--size",
        str(shm_bytes),
        "--tmpfs",
        "/dev/shm",
        "--remount-ro",
        "/dev",
        "--size",
        str(tmp_bytes),
        "--tmpfs",
        "/tmp",
        "--bind" if box_writable else "--ro-bind",
        str(box),
        BOX,
        "--remount-ro",
        "/",
        "--chdir",
        BOX,
        "--",
        *argv,
    ]


def _as_uid(uid: int) -> list[str]:
    """Exec prefix that drops to ``uid`` (and its group, no supplementary groups): util-linux setpriv."""
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def _launch_prefix(limits: Limits, uid: int | None, *, use_bwrap: bool, memory_cgroup: bool = False) -> list[str]:
    """Programs that prepare the child, each exec'ing the next, before the runner starts.

    No Python runs between fork and exec (no ``preexec_fn``): a forked child of a process with
    threads (Dagster, polars, litellm and the judge cache writer all start some) can deadlock on a
    lock another thread held at the fork, which happened in CI. The session is made by Popen
    (``start_new_session``); the network namespace (as root, without bubblewrap) by util-linux
    ``unshare``; the uid by ``setpriv``; the limits by ``prlimit``.
    """
    mem = limits.memory_mb * 1024 * 1024
    stack = (limits.stack_mb or limits.memory_mb) * 1024 * 1024
    cpu_soft = limits.rlimit_cpu_s  # whole seconds, above the limit (see Limits.rlimit_cpu_s)
    prefix: list[str] = []
    if uid is not None:
        if not use_bwrap:
            prefix += [UNSHARE, "--net"]  # no bubblewrap: at least take the network away while still root
        prefix += _as_uid(uid)
    rlimits = [
        "--core=0",
        f"--cpu={cpu_soft}:{cpu_soft + 1}",
        f"--fsize={limits.output_bytes}",
        f"--nofile={limits.max_open_files}",
        f"--stack={stack}",
    ]
    if per_process_address_space(limits, memory_cgroup):
        rlimits.append(f"--as={mem}")
    if uid is not None:
        # the uid is this run's alone, so the per-user count is this run's count;
        # bwrap and its pid-namespace init are counted too
        rlimits.append(f"--nproc={limits.max_procs + 2}")
    return [*prefix, PRLIMIT, *rlimits, "--"]


def per_process_address_space(limits: Limits, memory_cgroup: bool) -> bool:
    """Whether a run's processes get ``RLIMIT_AS`` = the memory limit: only where no memory cgroup bounds the run.

    With the stack limit at the memory limit (as contest judges set it), glibc gives every new thread a stack of
    that size, so under ``RLIMIT_AS`` of the same size a program's first ``pthread_create`` (``std::thread``,
    OpenMP) fails with EAGAIN and a correct program is judged RE. Where the run's memory cgroup counts what the
    run really uses (every process, no swap), the address space is left unbounded, as the judges that measure
    memory with control groups do; without one, ``RLIMIT_AS`` is the only memory bound there is, and it stays."""
    return limits.address_space and not memory_cgroup


SETPRIV, PRLIMIT, UNSHARE = "/usr/bin/setpriv", "/usr/bin/prlimit", "/usr/bin/unshare"


RUNNER_SOURCE = Path(__file__).parent / "native" / "cojudge_runner.c"
RUNNER_IN_BOX = "/.cojudge/runner"


_runner_lock = threading.Lock()


def runner_path(build_dir: Path) -> str:
    """The compiled reporting runner (see native/cojudge_runner.c), built once per source version under
    ``build_dir/runner/`` (the cache folder the caller was given: settings.py resolves it, core never looks)."""
    with _runner_lock:  # the judge's first runs start together, one per worker thread
        return _runner_path(Path(build_dir))


@cache
def _runner_path(build_dir: Path) -> str:
    source = RUNNER_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    base = build_dir / "runner"
    binary = base / f"cojudge_runner-{digest}"
    if not binary.is_file():
        base.mkdir(parents=True, exist_ok=True)
        staging = base / f".{binary.name}.{os.getpid()}"
        subprocess.run(["gcc", "-O2", "-o", str(staging), str(RUNNER_SOURCE)], check=True, capture_output=True)
        staging.chmod(0o755)
        staging.rename(binary)
    return str(readable_copy("cojudge-runner-", {"cojudge_runner": binary}) / "cojudge_runner")


def readable_copy(prefix: str, files: dict[str, Path]) -> Path:
    """Copies of cached ``files`` (relative path -> source) that the sandbox's uids can read.

    The dedicated uids cannot enter the cache (often under a private home), so they get a copy in a fresh
    folder of this process's own, readable by all (modes kept otherwise), removed at exit.
    """
    visible = Path(tempfile.mkdtemp(prefix=prefix))
    visible.chmod(0o755)
    for relative, source in files.items():
        target = visible / relative
        target.parent.mkdir(mode=0o755, parents=True, exist_ok=True)
        shutil.copy2(source, target)
        target.chmod(target.stat().st_mode | 0o444)
    atexit.register(shutil.rmtree, visible, True)
    return visible


RUNNER_STARTED = b"run\n"  # the runner's first report (native/cojudge_runner.c)
JOIN_SCRIPT = 'while [ "$1" != -- ]; do echo $$ > "$1" || exit 125; shift; done; shift; exec "$@"'
"""Run as root first in the launch chain: enter the run's groups (writing its own pid), then exec the rest, so
every process of the run starts inside them (no Python between fork and exec)."""


def run_sandboxed(
    argv: list[str],
    *,
    box: Path,
    limits: Limits,
    stdin_path: Path | None = None,
    stdout_path: Path,
    stderr_path: Path,
    box_writable: bool = False,
    env: dict[str, str] | None = None,
    extra_ro_binds: tuple[str, ...] = (),
    ro_mounts: tuple[tuple[str, str], ...] = (),
    build_dir: Path,
) -> RunResult:
    """Run ``argv`` with ``box`` as its working directory (``/box`` inside bwrap).

    Refer to the box's files by relative paths (``./prog``). Stdout and stderr
    go to the given host files (opened here, outside the sandbox), capped by the
    file-size limit. The program's environment is exactly ``env`` plus a minimal
    PATH, HOME and LANG. The program is started by the reporting runner, which
    tells how it ended; the CPU time is its run group's (every process, reaped or not) where there is
    one. A run the sandbox could not start raises :class:`SandboxError`; anything the program does
    (killing its runner included) gives a result, and no process of the run outlives this call. ``ro_mounts``
    are (host folder, path inside) pairs mounted read-only under bubblewrap only (outside /tmp, which is the
    sandbox's own); without bubblewrap they are absent. ``build_dir``: the folder the runner is built and kept
    in (its ``runner/``), the caller's cache folder.
    """
    use_bwrap = bwrap_path() is not None
    support = cgroup_support()
    syscalls = filter_support()
    isolation = isolation_record(limits, support, syscalls)
    uid = _next_uid()
    if uid is not None and box_writable:
        for folder in (box, *(d for d in box.rglob("*") if d.is_dir() and not d.is_symlink())):
            os.chown(folder, uid, uid)  # a writable box: the run may write in every folder of it
    clean_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
    clean_env.update(env or {})
    runner = runner_path(build_dir)
    if use_bwrap:
        binds = (*[p for p in extra_ro_binds if os.path.isdir(p)],)
        inner = [RUNNER_IN_BOX, "{report}", *argv]
        full_argv = _bwrap_argv(
            inner,
            box,
            box_writable=box_writable,
            tmp_bytes=limits.tmp_bytes,
            shm_bytes=limits.shm_bytes,
            runner=runner,
            extra_ro_binds=binds,
            ro_mounts=tuple((a, b) for a, b in ro_mounts if os.path.isdir(a)),
            seccomp=syscalls.bpf is not None,
        )
    else:  # the runner installs the filter on itself
        full_argv = [runner, "{report}", *(["--seccomp={seccomp}"] if syscalls.bpf is not None else []), *argv]
    group: RunCgroup | None = None
    if support.folders():
        group = RunCgroup(support, memory_bytes=limits.cgroup_memory_bytes, pids_max=limits.cgroup_pids)
        try:
            group.create()
        except OSError as exc:
            raise SandboxError(f"the run's control group {group.name} could not be made: {exc}") from exc
    try:
        return _run(
            full_argv,
            argv,
            box=box,
            limits=limits,
            uid=uid,
            use_bwrap=use_bwrap,
            group=group,
            stdin_path=stdin_path,
            stdout_path=stdout_path,
            stderr_path=stderr_path,
            env=clean_env,
            isolation=isolation,
            bpf=syscalls.bpf,
        )
    finally:
        if group is not None:
            group.remove()
        if uid is not None and not use_bwrap:
            _remove_files_of(uid, keep=box)


SHARED_WRITABLE = ("/tmp", "/var/tmp", "/dev/shm")  # where a uid without bubblewrap can leave files behind


def _remove_files_of(uid: int, *, keep: Path) -> None:
    """Without bubblewrap a run writes to the host's shared folders as its uid: remove what it left there
    (its box, chowned to it when writable, stays)."""
    keep = keep.resolve()
    for folder in SHARED_WRITABLE:
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                if entry.stat(follow_symlinks=False).st_uid != uid:
                    continue
                path = Path(entry.path)
                if path == keep or path in keep.parents:
                    continue
                if entry.is_dir(follow_symlinks=False):
                    shutil.rmtree(path, ignore_errors=True)
                else:
                    path.unlink(missing_ok=True)
            except OSError:
                continue


def _kill_run(pid: int, group: RunCgroup | None) -> None:
    try:
        os.killpg(pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    if group is not None:
        group.kill_all()


def _watchdog(
    pid: int, group: RunCgroup | None, limits: Limits, started: float, stopped: threading.Event, why: list[str]
) -> None:
    """Kill the run (process group ``pid`` and its run group) at its wall-clock limit, or, with a run group, at its
    CPU limit or its first OOM kill, appending the reason to ``why``; return when ``stopped`` is set."""
    while True:
        remaining = limits.wall_s - (time.monotonic() - started)
        if remaining <= 0:
            why.append("wall")
            return _kill_run(pid, group)
        if stopped.wait(min(CPU_POLL_S, remaining)):
            return
        if group is None:
            continue
        cpu_now = group.cpu_s()
        if cpu_now is not None and cpu_now > limits.cpu_s:
            why.append("cpu")
            if group.memory_full():  # read before the kill frees it: its CPU went to reclaim at the limit
                why.append("memory-full")
            return _kill_run(pid, group)
        if group.oom_kills():  # as v2's memory.oom.group: one process over the run's memory ends it all
            why.append("memory")
            return _kill_run(pid, group)


def _read_report(
    report: list[str], why: list[str], usage: resource.struct_rusage | None, *, group_cpu_known: bool, limits: Limits
) -> tuple[int | None, int | None, float, bool]:
    """The program's exit code, signal, CPU seconds as reaped, and whether the runner was lost, from the runner's
    report ("run <status> <user s> <system s> ...") and why the watchdog killed the run. A run with neither a
    report nor a kill has no outcome: the caller raises."""
    # without a report, what the launched process reaped (bwrap's pid namespace reaps every orphan at its end)
    reaped_cpu = usage.ru_utime + usage.ru_stime if usage is not None else 0.0
    if report[:1] == ["run"] and len(report) == 5:
        status = int(report[1])
        reaped_cpu = float(report[2]) + float(report[3])  # the program's tree, not the sandbox's start-up
        if os.WIFSIGNALED(status):
            return None, os.WTERMSIG(status), reaped_cpu, False
        return os.WEXITSTATUS(status), None, reaped_cpu, False
    # the runner started the program and was killed before it could report: by the program (a kill of its
    # parent, of -1), by the memory limit, or by the watchdog
    runner_lost = not why
    sig = None if runner_lost else signal.SIGKILL
    if why and not group_cpu_known:
        reaped_cpu = max(reaped_cpu, limits.cpu_s if why[:1] in (["cpu"], ["wall"]) else 0.0)
    return None, sig, reaped_cpu, runner_lost


def _run(
    full_argv: list[str],
    argv: list[str],
    *,
    box: Path,
    limits: Limits,
    uid: int | None,
    use_bwrap: bool,
    group: RunCgroup | None,
    stdin_path: Path | None,
    stdout_path: Path,
    stderr_path: Path,
    env: dict[str, str],
    isolation: Isolation,
    bpf: bytes | None = None,
) -> RunResult:
    join = ["/bin/sh", "-c", JOIN_SCRIPT, "cojudge-join", *group.join_files(), "--"] if group is not None else []
    memory_cgroup = group is not None and group.support.memory is not None
    stdin = open(stdin_path, "rb") if stdin_path is not None else subprocess.DEVNULL
    stdout = open(stdout_path, "wb")
    stderr = open(stderr_path, "wb")
    # descriptors made after the files, so a file that cannot be opened leaves no pipe open
    bpf_r = filter_pipe(bpf) if bpf is not None else None
    report_r, report_w = os.pipe()
    fill = {"{report}": str(report_w), "{seccomp}": str(bpf_r), "--seccomp={seccomp}": f"--seccomp={bpf_r}"}
    full_argv = [fill.get(a, a) for a in full_argv]
    stopped = threading.Event()
    why: list[str] = []  # "wall", "cpu" or "memory": why the watchdog killed the run
    started = time.monotonic()
    usage = None
    head, baseline = b"", None
    try:
        try:
            proc = subprocess.Popen(
                [*join, *_launch_prefix(limits, uid, use_bwrap=use_bwrap, memory_cgroup=memory_cgroup), *full_argv],
                cwd=box,
                stdin=stdin,
                stdout=stdout,
                stderr=stderr,
                env=env,
                start_new_session=True,
                close_fds=True,
                pass_fds=(report_w,) if bpf_r is None else (report_w, bpf_r),
            )
        except OSError as exc:
            os.close(report_r)
            raise SandboxError(f"the sandbox could not start {argv[0]}: {exc}") from exc
        finally:
            os.close(report_w)
            if bpf_r is not None:
                os.close(bpf_r)

        watcher = threading.Thread(
            target=_watchdog,
            args=(proc.pid, group, limits, started, stopped, why),
            name="cojudge-sandbox-watchdog",
            daemon=True,
        )
        watcher.start()
        try:
            # "run" arrives as the runner starts the program (nothing, if the sandbox never got that far): the
            # group's CPU until then is the sandbox's own start-up (about 15 ms of sh, setpriv, prlimit, bwrap),
            # not the program's
            head = os.read(report_r, len(RUNNER_STARTED))
            baseline = group.cpu_s() if group is not None and head == RUNNER_STARTED else None
            _, status, usage = os.wait4(proc.pid, 0)  # also the CPU of the tree it reaped, if the runner is lost
            proc.returncode = os.waitstatus_to_exitcode(status)
        finally:
            stopped.set()
            watcher.join()
        # whatever the program left behind goes too: its process group, and everything in its run group
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        leftover = group is not None and not group.wait_empty()
        with os.fdopen(report_r, "rb") as report_file:
            report = (head + report_file.read()).decode(errors="replace").split()
    finally:
        for f in (stdin, stdout, stderr):
            if hasattr(f, "close"):
                f.close()
    wall = time.monotonic() - started
    wall_killed, cpu_killed, memory_full = why == ["wall"], why[:1] == ["cpu"], "memory-full" in why
    group_total = group.cpu_s() if group is not None else None
    group_cpu = max(0.0, group_total - (baseline or 0.0)) if group_total is not None else None
    exit_code, sig, reaped_cpu, runner_lost = _read_report(
        report, why, usage, group_cpu_known=group_cpu is not None, limits=limits
    )
    if report[:1] != ["run"] and not why:
        message = Path(stderr_path).read_text(errors="replace")[:500].strip()
        raise SandboxError(f"the sandbox could not run {argv[0]} (exit {proc.returncode}): {message}")
    # the group's count from "run" on can miss what the program used before this thread read its baseline (a
    # busy machine delays the read); what the runner reaped is exact, so the larger of the two
    result = RunResult(
        exit_code=exit_code,
        signal=sig,
        cpu_s=max(group_cpu, reaped_cpu) if group_cpu is not None else reaped_cpu,
        wall_s=wall,
        wall_killed=wall_killed,
        stdout_path=stdout_path,
        stderr_path=stderr_path,
        runner_lost=runner_lost,
        cpu_killed=cpu_killed,
        oom_kills=group.oom_kills() if group is not None else 0,
        memory_full=memory_full,
        memory_peak_bytes=group.memory_peak_bytes() if group is not None else None,
        pids_limit_hits=group.pids_limit_hits() if group is not None else 0,
        cpu_source="cgroup" if group_cpu is not None else "rusage",
        leftover=leftover,
        isolation=isolation,
        cpu_limit_s=limits.cpu_s,
    )
    if result.cpu_limit_hit and group_total is not None:
        # killed at the CPU limit: the group's whole figure is reported, the one the watchdog compared with the
        # limit (the runner was killed too, so nothing was reaped, and a late baseline would show less than the
        # limit), or the kernel's count of a process its RLIMIT_CPU stopped, whichever is larger
        result.cpu_s = max(result.cpu_s, group_total)
    return result
