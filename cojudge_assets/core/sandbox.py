"""Running untrusted programs (submissions, mutants, their compilers) under limits.

Every untrusted process runs through :func:`run_sandboxed`. The layers, from the
outside in:

* a dedicated unprivileged uid per run when cojudge runs as root (so the
  per-user process limit applies to this run alone and the program can write
  nowhere that uid does not own);
* POSIX resource limits set before ``exec``: CPU seconds, address space, stack,
  file size (which also caps stdout and stderr, written to files), open files,
  processes, no core dumps;
* bubblewrap (``bwrap``) namespaces where available: no network (a new, empty
  network namespace), its own pid namespace (killing the run kills every
  process it forked), a read-only view of only the system directories
  (``/usr``, ``/etc``, the interpreter's prefix), the program's own directory
  mounted at ``/box`` and a small size-capped ``/tmp``; nothing else of the
  host, so no hidden tests, no corpus, no home directory;
* a clean environment: only ``PATH``, ``HOME``, ``LANG``, never a secret;
* a wall-clock timer that kills the whole process group at the limit.

Without bubblewrap (a machine where it is not installed) the run still gets
the uid, the limits, the clean environment and, as root, an empty network
namespace through ``unshare(2)``; the filesystem view is then the uid's normal
view. :func:`isolation_level` says which mode is in force, and the contest judge
records it.
"""

from __future__ import annotations

import atexit
import hashlib
import itertools
import math
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
from dataclasses import dataclass
from functools import lru_cache
from pathlib import Path

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


@dataclass
class RunResult:
    """What one sandboxed run did."""

    exit_code: int | None  # the program's exit status, None when killed by a signal
    signal: int | None  # the signal that ended it, if any
    cpu_s: float  # user + system CPU of the whole process tree that was reaped
    wall_s: float
    wall_killed: bool  # the wall-clock timer fired
    stdout_path: Path
    stderr_path: Path

    @property
    def cpu_limit_hit(self) -> bool:
        return self.signal in (signal.SIGXCPU, signal.SIGKILL) and not self.wall_killed

    @property
    def output_limit_hit(self) -> bool:
        return self.signal == signal.SIGXFSZ

    @property
    def ok(self) -> bool:
        return self.exit_code == 0 and self.signal is None and not self.wall_killed

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
        [*as_run_uid, path, "--unshare-all", "--die-with-parent", *_system_binds(), "true"],
        capture_output=True,
        timeout=20,
        cwd="/",
    )
    return path if probe.returncode == 0 else None


def isolation_level() -> str:
    """'bwrap' (namespaces + limits + uid) or 'rlimits' (limits + uid + netns as root)."""
    return "bwrap" if bwrap_path() else "rlimits"


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


class SandboxError(RuntimeError):
    """The sandbox itself could not be set up (not the program's fault)."""


def _bwrap_argv(argv: list[str], box: Path, *, box_writable: bool, tmp_bytes: int, runner: str,
                extra_ro_binds: tuple[str, ...], ro_mounts: tuple[tuple[str, str], ...] = ()) -> list[str]:
    path = bwrap_path()
    assert path is not None
    extra = [a for p in extra_ro_binds for a in ("--ro-bind", p, p)]
    extra += [a for source, target in ro_mounts for a in ("--ro-bind", source, target)]
    return [
        path,
        "--unshare-all",  # user, ipc, pid, net, uts, cgroup
        "--die-with-parent",
        "--new-session",
        "--cap-drop",
        "ALL",
        *_system_binds(),
        *extra,
        "--ro-bind", runner, RUNNER_IN_BOX,
        "--proc", "/proc",
        "--dev", "/dev",
        "--size", str(tmp_bytes), "--tmpfs", "/tmp",
        "--bind" if box_writable else "--ro-bind", str(box), BOX,
        "--chdir", BOX,
        "--",
        *argv,
    ]


def _as_uid(uid: int) -> list[str]:
    """Exec prefix that drops to ``uid`` (and its group, no supplementary groups): util-linux setpriv."""
    return [SETPRIV, f"--reuid={uid}", f"--regid={uid}", "--clear-groups"]


def _launch_prefix(limits: Limits, uid: int | None, *, use_bwrap: bool) -> list[str]:
    """Programs that prepare the child, each exec'ing the next, before the runner starts.

    No Python runs between fork and exec (no ``preexec_fn``): a forked child of a process with
    threads (Dagster, polars, litellm and the judge cache writer all start some) can deadlock on a
    lock another thread held at the fork, which happened in CI. The session is made by Popen
    (``start_new_session``); the network namespace (as root, without bubblewrap) by util-linux
    ``unshare``; the uid by ``setpriv``; the limits by ``prlimit``.
    """
    mem = limits.memory_mb * 1024 * 1024
    stack = (limits.stack_mb or limits.memory_mb) * 1024 * 1024
    cpu_soft = max(1, math.ceil(limits.cpu_s))  # whole seconds: the kernel counts CPU limits in seconds
    prefix: list[str] = []
    if uid is not None:
        if not use_bwrap:
            prefix += [UNSHARE, "--net"]  # no bubblewrap: at least take the network away while still root
        prefix += _as_uid(uid)
    rlimits = ["--core=0", f"--cpu={cpu_soft}:{cpu_soft + 1}", f"--fsize={limits.output_bytes}",
               f"--nofile={limits.max_open_files}", f"--stack={stack}"]
    if limits.address_space:
        rlimits.append(f"--as={mem}")
    if uid is not None:
        # the uid is this run's alone, so the per-user count is this run's count;
        # bwrap and its pid-namespace init are counted too
        rlimits.append(f"--nproc={limits.max_procs + 2}")
    return [*prefix, PRLIMIT, *rlimits, "--"]


SETPRIV, PRLIMIT, UNSHARE = "/usr/bin/setpriv", "/usr/bin/prlimit", "/usr/bin/unshare"


RUNNER_SOURCE = Path(__file__).parent / "native" / "cojudge_runner.c"
RUNNER_IN_BOX = "/.cojudge/runner"


_runner_lock = threading.Lock()


def runner_path() -> str:
    """The compiled reporting runner (see native/cojudge_runner.c), built once per source version."""
    with _runner_lock:  # the judge's first runs start together, one per worker thread
        return _runner_path()


@lru_cache(maxsize=1)
def _runner_path() -> str:
    source = RUNNER_SOURCE.read_bytes()
    digest = hashlib.sha256(source).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cojudge" / "runner"
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
) -> RunResult:
    """Run ``argv`` with ``box`` as its working directory (``/box`` inside bwrap).

    Refer to the box's files by relative paths (``./prog``). Stdout and stderr
    go to the given host files (opened here, outside the sandbox), capped by the
    file-size limit. The program's environment is exactly ``env`` plus a minimal
    PATH, HOME and LANG. The program is started by the reporting runner, which
    tells its CPU time and how it ended; a run the sandbox could not start raises
    :class:`SandboxError`. ``ro_mounts`` are (host folder, path inside) pairs mounted read-only under
    bubblewrap only (outside /tmp, which is the sandbox's own); without bubblewrap they are absent.
    """
    use_bwrap = bwrap_path() is not None
    uid = _next_uid()
    if uid is not None and box_writable:
        for folder in (box, *(d for d in box.rglob("*") if d.is_dir() and not d.is_symlink())):
            os.chown(folder, uid, uid)  # a writable box: the run may write in every folder of it
    clean_env = {"PATH": "/usr/local/bin:/usr/bin:/bin", "HOME": "/tmp", "LANG": "C.UTF-8"}
    clean_env.update(env or {})
    report_r, report_w = os.pipe()
    runner = runner_path()
    if use_bwrap:
        binds = (*[p for p in extra_ro_binds if os.path.isdir(p)],)
        inner = [RUNNER_IN_BOX, str(report_w), *argv]
        full_argv = _bwrap_argv(inner, box, box_writable=box_writable, tmp_bytes=limits.tmp_bytes,
                                runner=runner, extra_ro_binds=binds,
                                ro_mounts=tuple((a, b) for a, b in ro_mounts if os.path.isdir(a)))
    else:
        full_argv = [runner, str(report_w), *argv]
    stdin = open(stdin_path, "rb") if stdin_path is not None else subprocess.DEVNULL
    stdout = open(stdout_path, "wb")
    stderr = open(stderr_path, "wb")
    killed = threading.Event()
    started = time.monotonic()
    try:
        proc = subprocess.Popen(
            [*_launch_prefix(limits, uid, use_bwrap=use_bwrap), *full_argv],
            cwd=box,
            stdin=stdin,
            stdout=stdout,
            stderr=stderr,
            env=clean_env,
            start_new_session=True,
            close_fds=True,
            pass_fds=(report_w,),
        )
        os.close(report_w)

        def kill_group() -> None:
            killed.set()
            try:
                os.killpg(proc.pid, signal.SIGKILL)
            except ProcessLookupError:
                pass

        timer = threading.Timer(limits.wall_s, kill_group)
        timer.start()
        try:
            proc.wait()
        finally:
            timer.cancel()
        # whatever the program left behind in its group goes too
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        with os.fdopen(report_r, "rb") as report_file:
            report = report_file.read().decode().split()
    finally:
        for f in (stdin, stdout, stderr):
            if hasattr(f, "close"):
                f.close()
    wall = time.monotonic() - started
    if len(report) == 4:
        status = int(report[0])
        cpu = float(report[1]) + float(report[2])
        if os.WIFSIGNALED(status):
            exit_code, sig = None, os.WTERMSIG(status)
        else:
            exit_code, sig = os.WEXITSTATUS(status), None
    elif killed.is_set():
        exit_code, sig, cpu = None, signal.SIGKILL, limits.cpu_s
    else:
        message = Path(stderr_path).read_text(errors="replace")[:500].strip()
        raise SandboxError(f"the sandbox could not run {argv[0]} (exit {proc.returncode}): {message}")
    return RunResult(
        exit_code=exit_code,
        signal=sig,
        cpu_s=cpu,
        wall_s=wall,
        wall_killed=killed.is_set(),
        stdout_path=stdout_path,
        stderr_path=stderr_path,
    )
