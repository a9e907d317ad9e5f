"""The seccomp filter every sandboxed run gets: the system calls a submission, a compiler or a runtime never
needs and a kernel exploit would use.

Built once per process with libseccomp (through ``pyseccomp``, ctypes over ``libseccomp.so.2``) and exported as
a classic BPF program; the sandbox hands it to bubblewrap (``--seccomp FD``) or, without bubblewrap, to its own
runner (native/cojudge_runner.c), which installs it on itself before it starts the program. Either way the
program and everything it forks or execs run under it, and it cannot be removed.

The policy (docs/sandbox.md lists it with the reasons):

* every call in :data:`DENIED` fails with ``EPERM``: tracing and reading other processes' memory, mounting
  and namespaces, kernel keyrings, eBPF, performance counters, userfaultfd, kernel modules and kexec, clock
  and system administration calls, io_uring, file handles, ``personality`` and ``modify_ldt``;
* ``socket`` and ``socketpair`` of any address family but ``AF_UNIX`` fail with ``EPERM`` (:data:`SOCKET_FAMILY`:
  AF_VSOCK reaches a virtual machine's host from any network namespace, AF_NETLINK the kernel's subsystems);
* ``clone`` with any namespace flag fails with ``EPERM`` (``unshare`` is denied, and ``clone`` could make
  the same namespaces);
* ``clone3`` fails with ``ENOSYS``: its flags sit in memory a filter cannot read, and glibc (threads,
  ``posix_spawn``) falls back to ``clone`` on ``ENOSYS``;
* a call through another ABI than the machine's own (the 32-bit ``int 0x80`` gate, x32) kills the process,
  so the list cannot be bypassed by another system call table;
* everything else is allowed (gcc, g++, javac, java and python3 need a long and changing list: this is a
  deny list, as Docker's and nsjail's defaults are in spirit for these calls).

``COJUDGE_SECCOMP=off`` (read at every run) turns the filter off; the isolation record then says so, as it
does when libseccomp or the kernel's filter support is missing.
"""

from __future__ import annotations

import errno
import os
import tempfile
import threading
from dataclasses import dataclass
from functools import lru_cache

DENIED: tuple[str, ...] = (
    # other processes: tracing, their memory, comparing their kernel objects, taking their descriptors
    "ptrace",
    "process_vm_readv",
    "process_vm_writev",
    "kcmp",
    "pidfd_getfd",
    # mounts, the root, namespaces
    "mount",
    "umount2",
    "pivot_root",
    "chroot",
    "unshare",
    "setns",
    "open_tree",
    "move_mount",
    "fsopen",
    "fsconfig",
    "fsmount",
    "fspick",
    "mount_setattr",
    # kernel keyrings
    "keyctl",
    "add_key",
    "request_key",
    # kernel facilities with a history of exploitable bugs
    "bpf",
    "perf_event_open",
    "userfaultfd",
    "io_uring_setup",
    "io_uring_enter",
    "io_uring_register",
    # loading code into the kernel, replacing it
    "kexec_load",
    "kexec_file_load",
    "init_module",
    "finit_module",
    "delete_module",
    # administration of the machine
    "reboot",
    "swapon",
    "swapoff",
    "acct",
    "quotactl",
    "syslog",
    "vhangup",
    "iopl",
    "ioperm",
    "settimeofday",
    "clock_settime",
    "clock_adjtime",
    "adjtimex",
    "lookup_dcookie",
    "fanotify_init",
    # files by handle, around the mount namespace's view
    "open_by_handle_at",
    "name_to_handle_at",
    # the process's execution domain (ASLR off for what it execs, READ_IMPLIES_EXEC) and its own segment
    # descriptors (16-bit code, a long history of kernel bugs): no compiler or runtime of ours calls either
    "personality",
    "modify_ldt",
)

SOCKET_FAMILY: tuple[str, int] = ("AF_UNIX", 1)
"""The only address family ``socket`` and ``socketpair`` may use; any other fails with EPERM. The network
namespace is empty anyway, but AF_VSOCK reaches the host of a virtual machine from any namespace and AF_NETLINK
talks to the kernel's subsystems; gcc, g++, javac, java and python3 need none of them (a JVM that probes IPv6
gets EPERM and goes on without it)."""

# clone(2) flags that make a new namespace (linux/sched.h)
NAMESPACE_FLAGS: dict[str, int] = {
    "CLONE_NEWNS": 0x00020000,
    "CLONE_NEWCGROUP": 0x02000000,
    "CLONE_NEWUTS": 0x04000000,
    "CLONE_NEWIPC": 0x08000000,
    "CLONE_NEWUSER": 0x10000000,
    "CLONE_NEWPID": 0x20000000,
    "CLONE_NEWNET": 0x40000000,
    "CLONE_NEWTIME": 0x00000080,
}


@dataclass(frozen=True)
class FilterSupport:
    """The compiled filter, or why there is none."""

    bpf: bytes | None
    reason: str = ""  # why there is no filter
    denied: tuple[str, ...] = ()  # the calls of DENIED this machine's libseccomp knows

    def describe(self) -> str:
        """One line for the isolation record."""
        if self.bpf is None:
            return f"none: {self.reason}"
        return (
            f"seccomp deny list: {len(self.denied)} calls fail with EPERM (ptrace, mount, unshare, setns, bpf, ...), "
            f"sockets other than {SOCKET_FAMILY[0]} EPERM, namespace flags of clone EPERM, clone3 ENOSYS, "
            "other ABIs killed"
        )


def _kernel_has_filters() -> bool:
    try:
        with open("/proc/self/status") as status:
            return any(line.startswith("Seccomp:") for line in status)
    except OSError:
        return False


def build_bpf(denied: tuple[str, ...] = DENIED) -> tuple[bytes, tuple[str, ...]]:
    """The BPF program of the policy for this machine's architecture, and the denied calls it names.

    Calls this libseccomp does not know (newer than it) are left out of the list; raises OSError or
    ImportError where libseccomp cannot be loaded.
    """
    import pyseccomp as sc  # ctypes over libseccomp.so.2: loading it can fail, so only here

    flt = sc.SyscallFilter(sc.ALLOW)
    flt.set_attr(sc.Attr.ACT_BADARCH, sc.KILL_PROCESS)  # another ABI's call table: no way around the list
    known = []
    for name in denied:
        if sc.resolve_syscall(sc.Arch.NATIVE, name) < 0:
            continue  # unknown to this libseccomp (its pseudo-numbers are negative)
        flt.add_rule(sc.ERRNO(errno.EPERM), name)
        known.append(name)
    for call in ("socket", "socketpair"):
        # "domain is not AF_UNIX": the filter compares the whole 64-bit register, so a domain with junk in its
        # upper half (the kernel reads an int) is refused too, never let through
        flt.add_rule(sc.ERRNO(errno.EPERM), call, sc.Arg(0, sc.NE, SOCKET_FAMILY[1]))
    for flag in NAMESPACE_FLAGS.values():
        flt.add_rule(sc.ERRNO(errno.EPERM), "clone", sc.Arg(0, sc.MASKED_EQ, flag, flag))
    if sc.resolve_syscall(sc.Arch.NATIVE, "clone3") >= 0:
        flt.add_rule(sc.ERRNO(errno.ENOSYS), "clone3")
    with tempfile.TemporaryFile() as out:
        flt.export_bpf(out)
        out.seek(0)
        return out.read(), tuple(known)


_lock = threading.Lock()


@lru_cache(maxsize=1)
def _built() -> FilterSupport:
    if not _kernel_has_filters():
        return FilterSupport(None, "the kernel has no seccomp support (no Seccomp line in /proc/self/status)")
    try:
        bpf, known = build_bpf()
    except (OSError, ImportError, AttributeError, ValueError) as exc:
        return FilterSupport(None, f"libseccomp could not build the filter: {type(exc).__name__}: {exc}")
    return FilterSupport(bpf, denied=known)


def filter_support() -> FilterSupport:
    """The filter for this process's runs (built once), or why there is none (``COJUDGE_SECCOMP=off`` too)."""
    if os.environ.get("COJUDGE_SECCOMP", "").lower() == "off":
        return FilterSupport(None, "turned off by COJUDGE_SECCOMP")
    with _lock:
        return _built()


def filter_pipe(bpf: bytes) -> int:
    """A pipe's read end holding ``bpf`` and then its end: what bubblewrap's ``--seccomp FD`` and the runner read.

    One per run (a shared descriptor's offset would move under concurrent runs); the caller closes it once the
    run started.
    """
    read_end, write_end = os.pipe()
    try:
        if len(bpf) > 65536:  # a pipe's default capacity: the write would block with nobody reading yet
            raise ValueError(f"the seccomp filter is {len(bpf)} bytes, over a pipe's capacity")
        os.write(write_end, bpf)
    finally:
        os.close(write_end)
    return read_end
