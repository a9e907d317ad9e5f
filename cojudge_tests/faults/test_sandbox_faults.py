"""Hostile submissions against the contest judge: each gets a verdict within its limits and leaves nothing.

Each case is a defect found by attacking the sandbox (issue 15): a program that kills its runner
crashed the caller with SandboxError; the CPU time of children never reaped was not counted; memory
was limited per process (sixteen 150 MB children passed a 256 MB limit; the JVM's off-heap memory had
no limit); ``/dev/shm`` was the host's. Every test checks the verdict, that the harm stayed inside the
limit, and that no process of the run and no control group of it is left afterwards.
"""

from __future__ import annotations

import errno
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time
import uuid
from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.execution import contest_judge as contest_judge_module
from cojudge_assets.core.execution.cgroups import cgroup_support
from cojudge_assets.core.execution.contest_judge import (
    ContestJudge,
    Verdict,
    compiler,
    java_batch,
    python_batch,
    python_executable,
    runtime_binds,
)
from cojudge_assets.core.execution.contest_judge import judge as judge_front
from cojudge_assets.core.execution.sandbox import Limits, SandboxError, isolation_level, run_sandboxed
from cojudge_assets.core.execution.syscall_filter import FilterSupport, filter_support
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.ingest.label_audit import audit_labels
from cojudge_assets.core.ingest.progsnap2 import read_progsnap2
from cojudge_tests.conftest import SHARED_CORPORA, write_problem
from cojudge_tests.core.test_sandbox import _sandbox_processes

needs_memory_cgroup = pytest.mark.skipif(
    cgroup_support().memory is None, reason=f"no memory cgroup here: {cgroup_support().reason}"
)
needs_cpu_cgroup = pytest.mark.skipif(
    cgroup_support().cpu is None, reason=f"no CPU-accounting cgroup here: {cgroup_support().reason}"
)


def _leftovers() -> tuple[list[int], list[Path]]:
    """Live processes of this test process's run uids, and run groups of this process still present."""
    alive = _sandbox_processes()
    groups = [g for h in cgroup_support().folders() for g in h.parent.glob(f"cojudge-{os.getpid()}-*")]
    return alive, groups


WALL_LIMIT_S = 2 * 2.0 + 1  # the judge's wall clock for a 2 s problem
KILL_MARGIN_S = 5  # killing and removing a run on a loaded machine (the other tests' bound too)


@pytest.fixture(scope="module")
def two_second_problem(tmp_path_factory):
    """2 s and 256 MB, as in the reports of the defects (the per-process CPU limit is then 2 s soft, 3 s hard)."""
    return write_problem(
        tmp_path_factory.mktemp("faults"), {"sample/1": ("3 4\n", "7\n")}, time_limit=2.0, memory_mb=256, name="sum2"
    )


def _judge(judge: ContestJudge, problem, language: str, code: str):
    result = judge.judge(problem, language, code)
    assert _leftovers() == ([], []), "a process or a control group of the run outlived it"
    return result


@pytest.mark.parametrize("use_bwrap", [True, False], ids=["bwrap", "uid-only"])
@pytest.mark.parametrize(
    "language,code,under_bwrap",
    [
        (
            "c",
            "#include <signal.h>\n#include <unistd.h>\nint main(void){kill(getppid(), SIGKILL); for(;;); }\n",
            Verdict.TLE,
        ),
        (
            "c",
            "#include <signal.h>\n#include <unistd.h>\n"
            "int main(void){ if(fork()==0){for(;;);} kill(-1, SIGKILL); for(;;); }\n",
            Verdict.TLE,
        ),
        ("python", "import os, signal\nos.kill(os.getppid(), signal.SIGKILL)\nprint(7)\n", Verdict.AC),
    ],
    ids=["c-kill-parent", "c-kill-minus-one", "python-kill-parent"],
)
def test_a_program_that_kills_its_runner_gets_a_verdict(
    tmp_path, two_second_problem, monkeypatch, language, code, under_bwrap, use_bwrap
):
    """Without bubblewrap the program can kill its runner (same uid): RE "killed its runner". Under bubblewrap the
    runner is the pid namespace's process 1, which takes no SIGKILL from inside: the kill fails and the program
    gets the verdict the rest of it earns (its endless loop TLE, the Python one's answer AC)."""
    from cojudge_assets.core.execution import sandbox

    if use_bwrap and isolation_level() != "bwrap":
        pytest.skip("no bubblewrap here")
    if not use_bwrap:
        monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    result = _judge(ContestJudge(tmp_path / "cache", workers=1), two_second_problem, language, code)
    if use_bwrap:
        assert result.verdict == under_bwrap, result.summary()
    else:
        assert result.verdict == Verdict.RE, result.summary()
        assert "killed its runner" in result.tests[0].detail
    assert result.tests[0].wall_s < WALL_LIMIT_S + KILL_MARGIN_S


def test_killing_the_runner_does_not_crash_judge_many(judge, two_second_problem):
    """One hostile submission among good ones: every item gets its verdict (the label audit's call): WA under
    bubblewrap (the kill fails, it prints nothing), RE where it can kill its runner."""
    good = "a, b = map(int, input().split())\nprint(a + b)\n"
    hostile = "#include <signal.h>\n#include <unistd.h>\nint main(void){kill(getppid(), SIGKILL); return 0;}\n"
    results = judge.judge_many(
        [
            (two_second_problem, "python", good),
            (two_second_problem, "c", hostile),
            (two_second_problem, "python", good + "# again\n"),
        ]
    )
    hostile_verdict = Verdict.WA if isolation_level() == "bwrap" else Verdict.RE
    assert [r.verdict for r in results] == [Verdict.AC, hostile_verdict, Verdict.AC]
    assert _leftovers() == ([], [])


@needs_cpu_cgroup
def test_cpu_of_children_never_reaped_is_counted(judge, two_second_problem):
    """3 children x 1.3 s of CPU, each under the per-process limit, never waited for: 3.9 s > 2 s is TLE."""
    code = r"""#include <stdio.h>
#include <unistd.h>
#include <time.h>
int main(void){
    int fds[2]; pipe(fds);
    for (int i = 0; i < 3; i++) if (fork() == 0) {
        close(fds[0]);
        volatile unsigned long x = 0;
        while ((double)clock() / CLOCKS_PER_SEC < 1.3) x++;
        _exit(0);  /* a zombie: the parent never calls wait */
    }
    close(fds[1]);
    char c; while (read(fds[0], &c, 1) > 0) {}  /* every child has exited: EOF, without reaping them */
    puts("7");
    return 0;
}
"""
    result = _judge(judge, two_second_problem, "c", code)
    assert result.verdict == Verdict.TLE, result.summary()


@needs_cpu_cgroup
def test_unreaped_children_cpu_is_in_the_run_s_cpu_time():
    """The same three children measured with room to finish (60 s wall): all 3.9 s are counted, whatever the
    load on the machine (the runner alone saw the parent's few milliseconds)."""
    run_dir = Path(tempfile.mkdtemp(prefix="cojudge-faults-"))  # the run's uid must reach it (pytest's is 0700)
    try:
        result, output = _unreaped_children(run_dir)
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    assert result.ok and output == "7\n", result.stderr_text()
    assert result.cpu_source == "cgroup"
    assert result.cpu_s >= 3 * 1.3
    assert _leftovers() == ([], [])


def _unreaped_children(tmp_path: Path):
    """Run a program whose three children each burn 1.3 s of CPU and exit unreaped; (the run's result, its stdout)."""
    box = tmp_path / "box"
    box.mkdir()
    os.chmod(tmp_path, 0o755)
    os.chmod(box, 0o755)
    (box / "main.py").write_text(
        "import os, time\n"
        "r, w = os.pipe()\n"
        "for _ in range(3):\n"
        "    if os.fork() == 0:\n"
        "        os.close(r)\n"
        "        while time.process_time() < 1.3:\n"
        "            pass\n"
        "        os._exit(0)\n"
        "os.close(w)\n"
        "while os.read(r, 1):\n"
        "    pass\n"
        "print(7)\n"
    )
    result = run_sandboxed(
        [python_executable(), "-I", "-B", "main.py"],
        box=box,
        build_dir=tmp_path,
        limits=Limits(cpu_s=10, wall_s=60),
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        extra_ro_binds=runtime_binds("python"),
    )
    return result, (tmp_path / "out").read_text()


@needs_memory_cgroup
def test_sixteen_forks_of_150_mb_fail_a_256_mb_limit(judge, two_second_problem):
    """Each child is under the per-process limit; together they are 2.4 GB: the run's limit kills them."""
    code = r"""#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void){
    for (int i = 0; i < 16; i++) if (fork() == 0) {
        volatile char *p = malloc(150u << 20);  /* volatile: the compiler may not drop memory never read */
        for (size_t k = 0; p && k < (150u << 20); k += 4096) p[k] = 1;
        sleep(3);
        _exit(0);
    }
    while (wait(NULL) > 0) {}
    puts("7");
    return 0;
}
"""
    result = _judge(judge, two_second_problem, "c", code)
    assert result.verdict == Verdict.RE, result.summary()
    detail = result.tests[0].detail
    assert detail.startswith("memory limit exceeded")
    peak_mib = int(detail.split("peak ")[1].split(" MiB")[0])
    assert peak_mib <= 256 + 32  # the problem's limit and the sandbox's slack (sandbox.RUN_MEMORY_SLACK_MB)


THREADS = r"""#include <cstdio>
#include <cstdlib>
#include <thread>
#include <vector>
int main() {
    long a, b;
    if (std::scanf("%ld %ld", &a, &b) != 2) return 1;
    long sum = 0;
    std::vector<std::thread> workers;  /* four threads with the default stack: the stack limit, 256 MiB each */
    for (int i = 0; i < 4; i++) workers.emplace_back([&sum, a, b, i] { if (i == 0) sum = a + b; });
    for (auto &w : workers) w.join();
    std::printf("%ld\n", sum);
}
"""


@needs_memory_cgroup
def test_a_program_with_threads_is_accepted_and_a_thread_is_still_bounded(judge, two_second_problem):
    """The stack limit is the memory limit, so each thread's default stack is 256 MiB of address space: under an
    address-space limit of 256 MiB the first thread failed (EAGAIN) and a correct program was RE. The run's
    memory cgroup bounds what is used, whichever thread uses it."""
    accepted = _judge(judge, two_second_problem, "cpp", THREADS)
    assert accepted.verdict == Verdict.AC, accepted.summary()
    assert "RLIMIT_AS" not in accepted.isolation_limits["memory"]
    hog = THREADS.replace(
        "if (i == 0) sum = a + b;",
        "if (i == 0) sum = a + b; if (i == 1) { volatile char *p = (char *)std::malloc(400u << 20);"
        " for (size_t k = 0; p && k < (400u << 20); k += 4096) p[k] = 1; }",
    )
    result = _judge(judge, two_second_problem, "cpp", hog)
    assert result.verdict == Verdict.RE and result.tests[0].detail.startswith("memory limit exceeded"), result.summary()


JAVA_UNSAFE = """import java.lang.reflect.Field;
public class Main { public static void main(String[] a) throws Exception {
    Field f = sun.misc.Unsafe.class.getDeclaredField("theUnsafe"); f.setAccessible(true);
    sun.misc.Unsafe u = (sun.misc.Unsafe) f.get(null);
    for (int i = 0; i < 32; i++) { long p = u.allocateMemory(64L << 20); u.setMemory(p, 64L << 20, (byte) 1); }
    System.out.println(7);  // 2 GB off the heap, outside -Xmx
} }
"""
JAVA_DIRECT = """import java.nio.ByteBuffer; import java.util.ArrayList;
public class Main { public static void main(String[] a) {
    ArrayList<ByteBuffer> kept = new ArrayList<>();
    for (int i = 0; i < 32; i++) { ByteBuffer b = ByteBuffer.allocateDirect(64 << 20);
        for (int k = 0; k < (64 << 20); k += 4096) b.put(k, (byte) 1); kept.add(b); }
    System.out.println(7);
} }
"""


@needs_memory_cgroup
@pytest.mark.parametrize("code", [JAVA_UNSAFE, JAVA_DIRECT], ids=["unsafe", "direct-buffers"])
def test_jvm_memory_off_the_heap_is_bounded(judge, two_second_problem, code):
    result = _judge(judge, two_second_problem, "java", code)
    assert result.verdict == Verdict.RE, result.summary()
    detail = result.tests[0].detail
    if "memory limit exceeded" in detail:  # Unsafe: the run's cgroup killed the JVM at its limit
        peak_mib = int(detail.split("peak ")[1].split(" MiB")[0])
        assert peak_mib <= 256 + contest_judge_module.JAVA_RUN_OVERHEAD_MB
    else:  # direct buffers: the JVM's own cap (-XX:MaxDirectMemorySize defaults to -Xmx) throws first
        assert "OutOfMemoryError" in detail


@pytest.mark.skipif(isolation_level() != "bwrap", reason="a private /dev/shm needs bubblewrap")
def test_dev_shm_and_the_root_are_bounded_and_private(judge, two_second_problem):
    """1 GB written to /dev/shm (8 MB files, each under the file-size limit) stops at its size; the root and
    /dev take nothing; the host's /dev/shm sees none of it."""
    prefix = f"cojudge-fill-{uuid.uuid4().hex}-"
    code = f"""import os
def fill(folder, limit=1 << 30):
    written = 0
    try:
        while written < limit:
            with open(f"{{folder}}/{prefix}{{written}}", "wb") as f:
                for _ in range(8):
                    f.write(b"x" * (1 << 20)); f.flush(); written += 1 << 20
    except OSError:
        pass
    return written
shm, root, dev = fill("/dev/shm"), fill(""), fill("/dev")
print(7 if shm <= 64 << 20 and root == 0 and dev == 0 else f"{{shm}} {{root}} {{dev}}")
"""
    result = _judge(judge, two_second_problem, "python", code)
    assert result.verdict == Verdict.AC, result.summary()
    assert not list(Path("/dev/shm").glob(f"{prefix}*"))


@needs_memory_cgroup
@pytest.mark.skipif(os.geteuid() != 0, reason="a dedicated uid per run needs root")
def test_without_bubblewrap_dev_shm_counts_as_the_run_s_memory_and_is_cleaned(monkeypatch):
    """uid-only mode writes to the host's /dev/shm: its pages are the run's memory (killed at the limit) and
    what it left there is removed after the run."""
    from cojudge_assets.core.execution import sandbox

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    prefix = f"cojudge-fill-{uuid.uuid4().hex}-"
    run_dir = Path(tempfile.mkdtemp(prefix="cojudge-faults-"))
    try:
        box = run_dir / "box"
        box.mkdir()
        os.chmod(run_dir, 0o755)
        os.chmod(box, 0o755)
        (box / "main.py").write_text(
            "written = 0\n"
            "while written < 1 << 30:\n"
            f"    with open(f'/dev/shm/{prefix}{{written}}', 'wb') as f:\n"
            "        for _ in range(8):\n"
            "            f.write(b'x' * (1 << 20)); f.flush(); written += 1 << 20\n"
        )
        result = run_sandboxed(
            [python_executable(), "-I", "-B", "main.py"],
            box=box,
            build_dir=run_dir,
            limits=Limits(cpu_s=10, wall_s=60, memory_mb=256),
            stdout_path=run_dir / "out",
            stderr_path=run_dir / "err",
            extra_ro_binds=runtime_binds("python"),
        )
    finally:
        shutil.rmtree(run_dir, ignore_errors=True)
    assert result.isolation is not None and result.isolation.mode == "uid-only"
    assert result.memory_limit_hit and not result.ok
    assert result.memory_peak_bytes is not None
    assert result.memory_peak_bytes <= Limits(memory_mb=256).cgroup_memory_bytes
    assert not list(Path("/dev/shm").glob(f"{prefix}*"))
    assert _leftovers() == ([], [])


def test_fork_bomb_is_contained(judge, two_second_problem):
    code = "#include <unistd.h>\nint main(void){for(;;) fork();}\n"
    result = _judge(judge, two_second_problem, "c", code)
    assert result.verdict in (Verdict.TLE, Verdict.RE), result.summary()
    assert result.tests[0].wall_s < WALL_LIMIT_S + KILL_MARGIN_S


def test_a_sandbox_that_cannot_start_is_a_judge_error_not_an_exception(tmp_path, two_second_problem, monkeypatch):
    """The fault is injected where the sandbox is called; the result says why and is not cached."""
    judge = ContestJudge(tmp_path / "cache", workers=1)
    code = "a, b = map(int, input().split())\nprint(a + b)\n"
    compiled_before = code + "# compiled before the fault\n"
    assert judge.compile("python", compiled_before, memory_mb=256).ok  # so its run is what fails

    def broken(*args, **kwargs):
        raise SandboxError("the sandbox could not run python3 (exit 1): bwrap: injected")

    with monkeypatch.context() as patch:
        for part in (compiler, java_batch, python_batch, judge_front):  # every part that calls the sandbox
            patch.setattr(part, "run_sandboxed", broken)
        results = judge.judge_many(
            [
                (two_second_problem, "python", code),
                (two_second_problem, "python", compiled_before),
                (two_second_problem, "cobol", code),
            ]
        )
    assert [r.verdict for r in results] == [Verdict.JUDGE_ERROR] * 3
    assert results[0].error.startswith("compiling: ") and "injected" in results[0].error
    assert results[1].tests[0].verdict == Verdict.JUDGE_ERROR and "injected" in results[1].error
    assert "cobol" in results[2].error
    for program in (code, compiled_before):  # nothing of the fault was cached: judged again, accepted
        again = judge.judge(two_second_problem, "python", program)
        assert again.verdict == Verdict.AC and not again.from_cache


def test_without_cgroups_runs_keep_the_per_process_limits(tmp_path, two_second_problem, monkeypatch):
    """COJUDGE_CGROUPS=off: the fallback runs, and its isolation record says which limits applied."""
    monkeypatch.setenv("COJUDGE_CGROUPS", "off")
    cgroup_support.cache_clear()
    try:
        judge = ContestJudge(tmp_path / "cache", workers=1)
        result = judge.judge(two_second_problem, "c", '#include <stdio.h>\nint main(void){puts("7");}\n')
        hog = judge.judge(
            two_second_problem,
            "c",
            "#include <stdlib.h>\nint main(void){volatile char*p=malloc(1u<<30);"
            "for(unsigned k=0;k<(1u<<30);k+=4096) p[k]=1; return 0;}\n",
        )
    finally:
        monkeypatch.delenv("COJUDGE_CGROUPS")
        cgroup_support.cache_clear()
    assert result.verdict == Verdict.AC
    assert result.isolation.endswith("cgroup none")
    assert result.isolation_limits["memory"] == "RLIMIT_AS 256 MiB per process"
    assert "turned off" in result.isolation_limits["cgroup_note"]
    assert hog.verdict == Verdict.RE


@pytest.mark.skipif(not cgroup_support().folders(), reason=f"no cgroup here: {cgroup_support().reason}")
def test_groups_of_a_judge_killed_mid_run_are_removed_at_the_next_probe():
    """A judge process killed with runs in flight leaves their groups (and, without bubblewrap, their
    processes): the next probe kills what is in them and removes them."""
    import sys

    from cojudge_assets.core.execution.cgroups import probe_support

    dead = subprocess.run([sys.executable, "-c", "import os; print(os.getpid())"], capture_output=True, text=True)
    stale_name = f"cojudge-{int(dead.stdout)}-0"  # a pid that has exited
    sleeper = subprocess.Popen(["sleep", "600"])
    groups = [h.parent / stale_name for h in cgroup_support().folders()]
    try:
        for group in groups:
            group.mkdir()
            (group / "cgroup.procs").write_text(str(sleeper.pid))
        probe_support()
        assert sleeper.wait(timeout=10) == -9
        assert not any(group.exists() for group in groups)
    finally:
        sleeper.kill()
        for group in groups:
            if group.exists():
                group.rmdir()


def test_cgroup_v1_controllers_alone_count_and_kill_the_same(tmp_path, two_second_problem, monkeypatch):
    """COJUDGE_CGROUPS=v1 (a machine without v2): memory, pids, cpuacct and the freezer do the same work."""
    monkeypatch.setenv("COJUDGE_CGROUPS", "v1")
    cgroup_support.cache_clear()
    try:
        support = cgroup_support()
        if support.version != "v1" or support.memory is None or support.cpu is None or support.kill is None:
            pytest.skip(f"no writable v1 memory, cpuacct and freezer here: {support}")
        judge = ContestJudge(tmp_path / "cache", workers=1)
        forks = judge.judge(
            two_second_problem,
            "c",
            r"""#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include <sys/wait.h>
int main(void){
    for (int i = 0; i < 16; i++) if (fork() == 0) {
        volatile char *p = malloc(150u << 20);
        for (size_t k = 0; p && k < (150u << 20); k += 4096) p[k] = 1;
        sleep(3); _exit(0);
    }
    while (wait(NULL) > 0) {}
    puts("7");
}
""",
        )
        unreaped = judge.judge(
            two_second_problem,
            "c",
            r"""#include <stdio.h>
#include <unistd.h>
#include <time.h>
int main(void){
    int fds[2]; pipe(fds);
    for (int i = 0; i < 3; i++) if (fork() == 0) {
        close(fds[0]); volatile unsigned long x = 0;
        while ((double)clock() / CLOCKS_PER_SEC < 0.3) x++;
        _exit(0);
    }
    close(fds[1]); char c; while (read(fds[0], &c, 1) > 0) {}
    puts("7");
}
""",
        )
        leftovers = _leftovers()
    finally:
        monkeypatch.delenv("COJUDGE_CGROUPS")
        cgroup_support.cache_clear()
    assert forks.isolation.endswith("cgroup v1") and forks.verdict == Verdict.RE, forks.summary()
    assert forks.tests[0].detail.startswith("memory limit exceeded")
    assert unreaped.verdict == Verdict.AC and unreaped.tests[0].cpu_s >= 3 * 0.3  # the zombies' CPU, from cpuacct
    assert leftovers == ([], [])


# -- the seccomp filter (issue 28): the doors a kernel bug would use are shut ----------------------------------

# each program makes one call and prints "denied" when it failed with the errno the filter gives
_CALL_HEAD = r"""#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>
#include <linux/perf_event.h>
#include <sys/mount.h>
#include <sys/personality.h>
#include <sys/ptrace.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/uio.h>
static void report(long r, int expected) {
    if (r == -1 && errno == expected) puts("denied");
    else printf("allowed: returned %ld, errno %d (%s)\n", r, errno, strerror(errno));
}
int main(void) {
"""

DENIED_CALLS = {
    "ptrace-attach-parent": "report(ptrace(PTRACE_ATTACH, getppid(), 0, 0), EPERM);",
    "ptrace-attach-pid-1": "report(ptrace(PTRACE_ATTACH, 1, 0, 0), EPERM);",
    "ptrace-seize-parent": "report(ptrace(PTRACE_SEIZE, getppid(), 0, 0), EPERM);",
    "process_vm_readv-parent": "char buf[64]; struct iovec l = {buf, sizeof buf}, r = {(void *)0x400000, sizeof buf};"
    " report(process_vm_readv(getppid(), &l, 1, &r, 1, 0), EPERM);",
    "process_vm_writev-parent": "char buf[64] = {0}; struct iovec l = {buf, sizeof buf}, r = {(void *)0x400000, 64};"
    " report(process_vm_writev(getppid(), &l, 1, &r, 1, 0), EPERM);",
    "unshare-user": "report(unshare(CLONE_NEWUSER), EPERM);",
    "unshare-user-mount": "report(unshare(CLONE_NEWUSER | CLONE_NEWNS), EPERM);",
    "clone-new-user": "long r = syscall(SYS_clone, CLONE_NEWUSER | SIGCHLD, 0, 0, 0, 0); if (r == 0) _exit(0);"
    " report(r, EPERM);",
    "clone3-new-user": "unsigned long long args[11] = {0}; args[0] = CLONE_NEWUSER; args[4] = SIGCHLD;"
    " long r = syscall(SYS_clone3, args, sizeof args); if (r == 0) _exit(0); report(r, ENOSYS);",
    "mount-tmpfs": 'report(mount("none", "/tmp", "tmpfs", 0, NULL), EPERM);',
    "umount2": 'report(umount2("/tmp", MNT_DETACH), EPERM);',
    "setns": 'report(setns(open("/proc/self/ns/uts", O_RDONLY), 0), EPERM);',
    "pivot_root": 'report(syscall(SYS_pivot_root, ".", "."), EPERM);',
    "keyctl": "report(syscall(SYS_keyctl, 0 /* GET_KEYRING_ID */, -3 /* session */, 1), EPERM);",
    "add_key": 'report(syscall(SYS_add_key, "user", "cojudge", "x", 1, -3), EPERM);',
    "bpf": "char attr[128] = {0}; report(syscall(SYS_bpf, 0 /* MAP_CREATE */, attr, sizeof attr), EPERM);",
    "perf_event_open": "struct perf_event_attr a; memset(&a, 0, sizeof a); a.size = sizeof a;"
    " a.type = PERF_TYPE_SOFTWARE; a.config = PERF_COUNT_SW_CPU_CLOCK; a.exclude_kernel = 1;"
    " report(syscall(SYS_perf_event_open, &a, 0, -1, -1, 0), EPERM);",
    "userfaultfd": "report(syscall(SYS_userfaultfd, 0), EPERM);",
    "kexec_load": "report(syscall(SYS_kexec_load, 0, 0, 0, 0), EPERM);",
    "io_uring_setup": "char params[120] = {0}; report(syscall(SYS_io_uring_setup, 1, params), EPERM);",
    # issue 34: socket families but AF_UNIX (vsock reaches a virtual machine's host), personality, modify_ldt
    "socket-vsock": "report(socket(40 /* AF_VSOCK */, SOCK_STREAM, 0), EPERM);",
    "socket-netlink": "report(socket(AF_NETLINK, SOCK_RAW, 0 /* NETLINK_ROUTE */), EPERM);",
    "socket-inet": "report(socket(AF_INET, SOCK_STREAM, 0), EPERM);",
    "socket-packet": "report(socket(AF_PACKET, SOCK_RAW, 0), EPERM);",
    "socket-vsock-junk-upper-half": "report(syscall(SYS_socket, (1UL << 32) | 40, SOCK_STREAM, 0), EPERM);",
    "socket-unix-junk-upper-half": "report(syscall(SYS_socket, (1UL << 32) | AF_UNIX, SOCK_STREAM, 0), EPERM);",
    "socketpair-inet": "int sv[2]; report(socketpair(AF_INET, SOCK_STREAM, 0, sv), EPERM);",
    "personality-no-aslr": "report(personality(ADDR_NO_RANDOMIZE), EPERM);",
    "personality-query": "report(syscall(SYS_personality, 0xffffffffUL), EPERM);",
    "modify_ldt": "char ldt[16]; report(syscall(SYS_modify_ldt, 0, ldt, sizeof ldt), EPERM);",
}


def _call_program(body: str) -> str:
    return _CALL_HEAD + "    " + body + "\n    return 0;\n}\n"


@pytest.fixture(scope="module")
def denied_problem(tmp_path_factory):
    return write_problem(
        tmp_path_factory.mktemp("seccomp"), {"sample/1": ("\n", "denied\n")}, time_limit=2.0, name="denied"
    )


@pytest.mark.skipif(filter_support().bpf is None, reason=f"no seccomp filter here: {filter_support().reason}")
@pytest.mark.parametrize("call", sorted(DENIED_CALLS))
def test_a_denied_call_fails_with_eperm(judge, denied_problem, call):
    """ptrace of the parent, unshare, mount and the rest fail (clone3 with ENOSYS, so glibc falls back to clone,
    whose namespace flags are refused); the program goes on and prints what it saw."""
    result = _judge(judge, denied_problem, "c", _call_program(DENIED_CALLS[call]))
    assert result.verdict == Verdict.AC, result.summary()
    assert "+ seccomp" in result.isolation


@pytest.mark.skipif(filter_support().bpf is None, reason=f"no seccomp filter here: {filter_support().reason}")
def test_unix_sockets_still_work_under_the_filter(judge, denied_problem):
    """AF_UNIX is the one family allowed: a socket and a connected pair of them work (a runtime may use them)."""
    body = (
        "int sv[2]; char c = 0; int s = socket(AF_UNIX, SOCK_STREAM, 0);"
        ' if (s >= 0 && socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0 && write(sv[0], "x", 1) == 1'
        ' && read(sv[1], &c, 1) == 1 && c == 120) puts("denied"); else perror("unix socket");'
    )
    result = _judge(judge, denied_problem, "c", _call_program(body))
    assert result.verdict == Verdict.AC, result.summary()


_OTHER_ABIS = {
    # unshare(CLONE_NEWUSER) through the x32 table (the x32 bit on x86-64's own number)
    "x32-unshare": "report(syscall(0x40000000 | SYS_unshare, CLONE_NEWUSER), ENOSYS);",
    # unshare(CLONE_NEWUSER) through the 32-bit gate (i386's number 310)
    "int80-unshare": 'long r; __asm__ volatile("int $0x80" : "=a"(r) : "a"(310), "b"(CLONE_NEWUSER) : "memory");'
    " if (r < 0) { errno = -r; r = -1; } report(r, ENOSYS);",
}


@pytest.mark.skipif(filter_support().bpf is None, reason=f"no seccomp filter here: {filter_support().reason}")
@pytest.mark.skipif(os.uname().machine != "x86_64", reason="the other ABIs tried are x86-64's")
@pytest.mark.parametrize("call", sorted(_OTHER_ABIS))
def test_the_deny_list_cannot_be_bypassed_through_another_abi(judge, denied_problem, call):
    """A call through another system call table kills the program (SIGSYS), or the kernel has no such table."""
    result = _judge(judge, denied_problem, "c", _call_program(_OTHER_ABIS[call]))
    killed = result.verdict == Verdict.RE and result.tests[0].detail.startswith(f"signal {signal.SIGSYS}")
    assert killed or result.verdict == Verdict.AC, result.summary()


@pytest.mark.skipif(filter_support().bpf is None, reason=f"no seccomp filter here: {filter_support().reason}")
@pytest.mark.skipif(os.geteuid() != 0, reason="the mode without bubblewrap is the uid-only mode of root")
@pytest.mark.parametrize("call", ["ptrace-attach-parent", "unshare-user", "mount-tmpfs", "clone-new-user"])
def test_without_bubblewrap_the_runner_installs_the_filter(tmp_path, denied_problem, monkeypatch, call):
    from cojudge_assets.core.execution import sandbox

    monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    result = _judge(ContestJudge(tmp_path / "cache", workers=1), denied_problem, "c", _call_program(DENIED_CALLS[call]))
    assert result.isolation.startswith("uid-only + seccomp"), result.isolation
    assert result.verdict == Verdict.AC, result.summary()


def test_without_the_filter_the_record_says_so_and_the_call_goes_through(tmp_path, denied_problem, monkeypatch):
    """COJUDGE_SECCOMP=off: the isolation record says "none" and why; and keyctl then succeeds inside bubblewrap
    (what the filter tests above would see without it)."""
    monkeypatch.setenv("COJUDGE_SECCOMP", "off")
    result = _judge(
        ContestJudge(tmp_path / "cache", workers=1), denied_problem, "c", _call_program(DENIED_CALLS["keyctl"])
    )
    assert "seccomp" not in result.isolation
    assert result.isolation_limits["syscalls"] == "none: turned off by COJUDGE_SECCOMP"
    if isolation_level() == "bwrap":
        assert result.verdict == Verdict.WA, result.summary()  # "allowed: returned <the keyring's id>"


@pytest.mark.skipif(isolation_level() != "bwrap", reason="--disable-userns is bubblewrap's")
def test_even_without_the_filter_no_user_namespace_can_be_made_under_bubblewrap(tmp_path, denied_problem, monkeypatch):
    """bubblewrap's --disable-userns (max_user_namespaces 0 inside): with COJUDGE_SECCOMP=off, unshare(CLONE_NEWUSER)
    fails with ENOSPC, where it succeeded before (the way to mount and the rest, which the filter otherwise stops)."""
    monkeypatch.setenv("COJUDGE_SECCOMP", "off")
    result = _judge(
        ContestJudge(tmp_path / "cache", workers=1),
        denied_problem,
        "c",
        _call_program("report(unshare(CLONE_NEWUSER), ENOSPC);"),
    )
    assert "seccomp" not in result.isolation
    assert result.verdict == Verdict.AC, result.summary()


@pytest.mark.parametrize("use_bwrap", [True, False], ids=["bwrap", "runner"])
def test_a_filter_that_cannot_be_installed_stops_the_run(tmp_path, monkeypatch, use_bwrap):
    """Never silently weaker: a filter bubblewrap or the runner cannot install is a sandbox error, not a run
    without it."""
    from cojudge_assets.core.execution import sandbox

    if use_bwrap and isolation_level() != "bwrap":
        pytest.skip("no bubblewrap here")
    if not use_bwrap:
        monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    monkeypatch.setattr(sandbox, "filter_support", lambda: FilterSupport(b"\x06\x00\x00", denied=("ptrace",)))
    box = Path(tempfile.mkdtemp(prefix="cojudge-faults-"))
    try:
        os.chmod(box, 0o755)
        with pytest.raises(SandboxError):
            run_sandboxed(
                ["/bin/true"],
                box=box,
                build_dir=tmp_path,
                limits=Limits(),
                stdout_path=tmp_path / "o",
                stderr_path=tmp_path / "e",
            )
    finally:
        shutil.rmtree(box, ignore_errors=True)
    assert _leftovers() == ([], [])


# -- honest labels (issue 28) --------------------------------------------------------------------------------


def test_a_disk_filling_program_is_a_file_size_limit_not_an_output_limit(judge, two_second_problem):
    """Writing a file of its own past RLIMIT_FSIZE (the kernel's SIGXFSZ) is "file size limit exceeded"; its
    stdout stayed small, so it is not the output limit (test_sandbox's output flood still is)."""
    code = r"""#include <stdio.h>
#include <string.h>
int main(void){
    static char block[1 << 20];
    memset(block, 'x', sizeof block);
    FILE *f = fopen("/tmp/fill", "wb");
    if (!f) { perror("fopen"); return 3; }
    for (int i = 0; i < 1024; i++) { fwrite(block, 1, sizeof block, f); fflush(f); }
    puts("7");
    return 0;
}
"""
    result = _judge(judge, two_second_problem, "c", code)
    assert result.verdict == Verdict.RE, result.summary()
    assert result.tests[0].detail.startswith("file size limit exceeded"), result.summary()
    assert "output limit" not in result.tests[0].detail


@needs_cpu_cgroup
def test_a_run_killed_at_the_cpu_limit_reports_at_least_the_limit(tmp_path, monkeypatch):
    """The watchdog kills when the run group's CPU passes the limit; that figure is the one reported, even when
    a busy machine delays the read of the start-up baseline (injected: 0.6 s late, while the program burns)."""
    from cojudge_assets.core.execution import sandbox

    real_cpu_s = sandbox.RunCgroup.cpu_s
    delayed: list[bool] = []

    def late_first_read(self):
        if threading.current_thread() is threading.main_thread() and not delayed:
            delayed.append(True)
            time.sleep(0.6)
        return real_cpu_s(self)

    monkeypatch.setattr(sandbox.RunCgroup, "cpu_s", late_first_read)
    box = Path(tempfile.mkdtemp(prefix="cojudge-faults-"))
    try:
        os.chmod(box, 0o755)
        (box / "burn.c").write_text("int main(void){volatile unsigned long x = 0; for (;;) x++;}\n")
        subprocess.run(["gcc", "-O2", "-o", str(box / "burn"), str(box / "burn.c")], check=True)
        limits = Limits(cpu_s=0.5, wall_s=20)
        result = run_sandboxed(
            ["./burn"],
            box=box,
            build_dir=tmp_path,
            limits=limits,
            stdout_path=tmp_path / "out",
            stderr_path=tmp_path / "err",
        )
    finally:
        shutil.rmtree(box, ignore_errors=True)
    assert delayed, "the baseline read was not delayed"
    assert result.cpu_killed and result.cpu_limit_hit and result.cpu_source == "cgroup"
    assert result.cpu_s >= limits.cpu_s, result
    assert _leftovers() == ([], [])


@pytest.mark.parametrize("cgroups", ["on", "off"])
def test_a_busy_loop_stopped_for_its_cpu_time_reports_at_least_the_limit(tmp_path, monkeypatch, cgroups):
    """On this (busy, shared) machine RLIMIT_CPU at the limit stopped a 2 s busy loop at 1.68-1.88 s measured, 3
    runs of 3, with and without the run group ("killed at the CPU limit (1.81s used, limit 2.0s)"): the kernel's
    tick count ran ahead. RLIMIT_CPU is now a backstop above the limit; the run group's watchdog stops it at the
    limit as measured, and without a run group the backstop stops it past the limit."""
    if cgroups == "off":
        monkeypatch.setenv("COJUDGE_CGROUPS", "off")
        cgroup_support.cache_clear()
    box = Path(tempfile.mkdtemp(prefix="cojudge-faults-"))
    try:
        os.chmod(box, 0o755)
        (box / "burn.c").write_text("int main(void){volatile unsigned long x = 0; for (;;) x++;}\n")
        subprocess.run(["gcc", "-O2", "-o", str(box / "burn"), str(box / "burn.c")], check=True)
        limits = Limits(cpu_s=1.0, wall_s=60)
        result = run_sandboxed(
            ["./burn"],
            box=box,
            build_dir=tmp_path,
            limits=limits,
            stdout_path=tmp_path / "out",
            stderr_path=tmp_path / "err",
        )
    finally:
        shutil.rmtree(box, ignore_errors=True)
        monkeypatch.delenv("COJUDGE_CGROUPS", raising=False)
        cgroup_support.cache_clear()
    assert result.cpu_limit_hit and not result.wall_killed, result
    assert result.cpu_s >= limits.cpu_s, result
    if cgroups == "on" and cgroup_support().cpu is not None:
        assert result.cpu_killed and result.cpu_source == "cgroup", result  # the watchdog, not RLIMIT_CPU
    assert _leftovers() == ([], [])


def test_a_compiled_binary_is_shared_with_each_test_not_copied(tmp_path):
    """Each test's box holds another name of the cached binary's inode (a 220 MiB static binary was copied for
    every test): the program prints the inode and link count of ./prog, and every test's answer is the cached
    file's inode."""
    judge = ContestJudge(tmp_path / "cache", workers=1)
    code = (
        '#include <stdio.h>\n#include <sys/stat.h>\nint main(void){struct stat s; if (stat("./prog", &s)) return 3;'
        ' printf("%lu\\n", (unsigned long)s.st_ino); fprintf(stderr, "%lu links\\n", (unsigned long)s.st_nlink);'
        " return 0;}\n"
    )
    compiled = judge.compile("c", code)
    assert compiled.ok, compiled.message
    cached = (compiled.artifact_dir / "prog").stat()
    inode = f"{cached.st_ino}\n"
    problem = write_problem(tmp_path, {"sample/1": ("1\n", inode), "secret/1": ("2\n", inode)}, name="inode")
    result = judge.judge(problem, "c", code)
    assert result.verdict == Verdict.AC, result.summary()
    assert [t.verdict for t in result.tests] == [Verdict.AC, Verdict.AC]
    assert (compiled.artifact_dir / "prog").stat().st_nlink == cached.st_nlink  # each test's link is gone again


@pytest.mark.slow
@pytest.mark.skipif(not SHARED_CORPORA.is_dir(), reason=f"shared corpora not found at {SHARED_CORPORA}")
@pytest.mark.skipif(filter_support().bpf is None, reason=f"no seccomp filter here: {filter_support().reason}")
def test_the_filter_changes_no_verdict_of_real_student_programs(tmp_path, monkeypatch):
    """ITSP's real C programs (the sample test_importers audits: every recorded/re-executed disagreement the corpus
    knows of and every 12th other attempt) get the same re-executed verdict and first failing test with the
    filter as without it, each judged from an empty cache (runs a wall-clock kill ended are left out: the load
    decides those)."""
    corpus = SHARED_CORPORA / "itsp-c"
    attempts, _, _ = read_progsnap2(corpus)
    main = pl.read_csv(corpus / "progsnap2" / "MainTable.csv", infer_schema=False).with_columns(
        ("progsnap2/" + pl.col("EventID")).alias("attempt_uid")
    )
    noisy = main.filter(pl.col("Verdict") != pl.col("ReexecVerdict"))["attempt_uid"].to_list()
    rest = main.filter(pl.col("Verdict") == pl.col("ReexecVerdict")).sort("attempt_uid")["attempt_uid"][::12]
    chosen = attempts.filter(pl.col("attempt_uid").is_in(noisy + rest.to_list()))
    problems = read_problems(corpus / "problems")
    with_filter = audit_labels(chosen, problems, ContestJudge(tmp_path / "with"))
    monkeypatch.setenv("COJUDGE_SECCOMP", "off")
    without = audit_labels(chosen, problems, ContestJudge(tmp_path / "without"))
    assert len(with_filter) == len(chosen) > 60
    assert "JUDGE_ERROR" not in with_filter["reexec_verdict"].to_list()
    both = with_filter.join(without, on="attempt_uid", suffix="_off")
    # a wall-clock kill depends on the machine's load (a slow test's CPU limit is reached later in wall time, so
    # a loaded machine can stop a slow program at an earlier test): those rows say nothing about the filter
    by_load = pl.any_horizontal(pl.col(c).str.contains("wall-clock").fill_null(False) for c in ("detail", "detail_off"))
    compared = both.filter(~by_load)
    assert len(compared) >= 0.9 * len(both)
    differ = compared.filter(
        (pl.col("reexec_verdict") != pl.col("reexec_verdict_off"))
        | ~pl.col("first_failure").eq_missing(pl.col("first_failure_off"))
    )
    # a program with undefined behaviour can end differently from run to run in either mode (this sample has one:
    # itsp-lab6-280631-1, WA or SIGSEGV by memory layout, about one run in four WA): a program that differs is
    # judged again, 6 times each way from empty caches, and the filter changed it only if no outcome seen with
    # the filter is ever seen without it
    for row in differ.to_dicts():
        attempt = chosen.filter(pl.col("attempt_uid") == row["attempt_uid"])
        seen = {
            "with": {(row["reexec_verdict"], row["first_failure"])},
            "without": {(row["reexec_verdict_off"], row["first_failure_off"])},
        }
        for i in range(6):
            for mode in seen:
                if mode == "with":
                    monkeypatch.delenv("COJUDGE_SECCOMP", raising=False)
                else:
                    monkeypatch.setenv("COJUDGE_SECCOMP", "off")
                again = audit_labels(attempt, problems, ContestJudge(tmp_path / f"again-{mode}-{i}")).row(0, named=True)
                seen[mode].add((again["reexec_verdict"], again["first_failure"]))
        assert seen["with"] & seen["without"], (row, seen)


def test_a_cache_on_another_filesystem_is_copied_once_per_process_not_per_test(tmp_path, monkeypatch):
    """Hard links cannot cross filesystems (EXDEV, injected): each cached file is copied once beside the run
    folders and every test's box links that copy; a file a run could change (world-writable) is copied per box."""
    artifact = tmp_path / "artifact"
    (artifact / "classes").mkdir(parents=True)
    (artifact / "prog").write_bytes(b"\x7fELF" + bytes(4096))
    (artifact / "prog").chmod(0o755)
    (artifact / "classes" / "Main.class").write_bytes(b"\xca\xfe\xba\xbe")
    (artifact / "writable").write_bytes(b"x")
    (artifact / "writable").chmod(0o666)
    real_link = os.link

    def cross_device(source, target, *args, **kwargs):
        if Path(source).is_relative_to(artifact):
            raise OSError(errno.EXDEV, "Invalid cross-device link")
        return real_link(source, target, *args, **kwargs)

    monkeypatch.setattr(os, "link", cross_device)
    boxes = [tmp_path / f"run{i}" / "box" for i in range(3)]
    for box in boxes:
        box.parent.mkdir()
        judge_front.link_box(artifact, box)
    for name in ("prog", "classes/Main.class"):
        inodes = {(box / name).stat().st_ino for box in boxes}
        assert len(inodes) == 1 and (artifact / name).stat().st_ino not in inodes, name
        assert (boxes[0] / name).read_bytes() == (artifact / name).read_bytes()
    assert len({(box / "writable").stat().st_ino for box in boxes}) == 3


# -- a runner the program cannot touch (issue 34) ------------------------------------------------------------
# A program that wrote /proc/<runner>/mem rewrote the runner's report: a crash was judged AC. Each attack below
# injects, where the target waits in a system call (/proc/<pid>/syscall's last field), code that writes a forged
# report ("exit status 0, no CPU") to the runner's report descriptor (its argv[1], in /proc/<pid>/cmdline) and
# exits; then the program crashes. The runner is non-dumpable and, under bubblewrap, the pid namespace's process 1
# (no bubblewrap init beside it), so every such write fails and the crash is judged as a crash.

_FORGE_C = r"""#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
static const char line[] = "0 0.000000 0.000000 0\n";
/* write(report fd, line, len); exit_group(0), at the instruction pid returns to from its system call */
static void forge(int pid) {
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%d/cmdline", pid);
    int c = open(path, O_RDONLY);
    if (c < 0) return;
    ssize_t n = read(c, buf, sizeof buf - 1);
    close(c);
    if (n <= 0) return;
    buf[n] = 0;
    int fd = (size_t)n > strlen(buf) + 1 ? atoi(buf + strlen(buf) + 1) : 1;
    unsigned long pc = 0;
    snprintf(path, sizeof path, "/proc/%d/syscall", pid);
    for (int tries = 0; tries < 200 && !pc; tries++) { /* "running" until it waits in wait4: up to 1 s */
        FILE *f = fopen(path, "r");
        if (!f) break;
        if (fgets(buf, sizeof buf, f) && buf[0] >= '0' && buf[0] <= '9') {
            char *last = strrchr(buf, ' ');
            if (last) pc = strtoul(last + 1, 0, 16);
        }
        fclose(f);
        if (!pc) usleep(5000);
    }
    unsigned char code[80] = {0x48, 0x8d, 0x35, 0x1a, 0, 0, 0, 0xbf, 0, 0, 0, 0, 0xba, 0, 0, 0, 0,
                              0xb8, 1, 0, 0, 0, 0x0f, 0x05, 0x31, 0xff, 0xb8, 0xe7, 0, 0, 0, 0x0f, 0x05};
    int len = sizeof line - 1;
    memcpy(code + 8, &fd, 4);
    memcpy(code + 13, &len, 4);
    memcpy(code + 33, line, len);
    snprintf(path, sizeof path, "/proc/%d/mem", pid);
    int m = open(path, O_RDWR);
    if (m < 0) { fprintf(stderr, "pid %d: mem: %s\n", pid, strerror(errno)); return; }
    if (pc) fprintf(stderr, "pid %d: wrote %zd bytes\n", pid, pwrite(m, code, 33 + len, (off_t)pc));
    else fprintf(stderr, "pid %d: mem open, no pc\n", pid);
    close(m);
}
int main(void) {
    puts("ANSWER");
    fflush(stdout);
    if (EVERY) {
        DIR *d = opendir("/proc");
        struct dirent *e;
        while ((e = readdir(d))) if (atoi(e->d_name) > 0 && atoi(e->d_name) != getpid()) forge(atoi(e->d_name));
    } else forge(getppid());
    ENDING;
    return 0;
}
"""

_FORGE_PY = r"""import os, signal, struct, sys, time
print("7", flush=True)
line = b"0 0.000000 0.000000 0\n"
pid = os.getppid()
try:
    fd = int(open(f"/proc/{pid}/cmdline", "rb").read().split(b"\0")[1])
    for _ in range(200):  # "running" until it waits in wait4: up to 1 s
        fields = open(f"/proc/{pid}/syscall").read().split()
        if fields[0].isdigit():
            break
        time.sleep(0.005)
    pc = int(fields[-1], 16)
    code = bytes([0x48, 0x8D, 0x35, 0x1A, 0, 0, 0, 0xBF]) + struct.pack("<i", fd) + b"\xba"
    code += struct.pack("<i", len(line)) + bytes([0xB8, 1, 0, 0, 0, 0x0F, 0x05, 0x31, 0xFF, 0xB8, 0xE7, 0, 0, 0])
    code += bytes([0x0F, 0x05]) + line
    with open(f"/proc/{pid}/mem", "r+b", buffering=0) as mem:
        mem.seek(pc)
        mem.write(code)
except OSError as exc:
    print(exc, file=sys.stderr, flush=True)
os.kill(os.getpid(), signal.SIGSEGV)
"""

needs_x86_64 = pytest.mark.skipif(os.uname().machine != "x86_64", reason="the injected code is x86-64's")


def _forge(*, every: bool, answer: str = "7", ending: str = "*(volatile int *)0 = 1") -> str:
    return _FORGE_C.replace("ANSWER", answer).replace("EVERY", "1" if every else "0").replace("ENDING", ending)


@needs_x86_64
@pytest.mark.parametrize("use_bwrap", [True, False], ids=["bwrap", "uid-only"])
@pytest.mark.parametrize("language", ["c", "python"])
def test_a_crashing_program_cannot_forge_its_runner_s_report(
    tmp_path, two_second_problem, monkeypatch, use_bwrap, language
):
    """The forge of the issue: the program prints the right answer, rewrites its runner (its parent) to report
    "exit 0", then crashes. Before: AC. Now the write fails and the crash is RE 'signal 11'."""
    from cojudge_assets.core.execution import sandbox

    if use_bwrap and isolation_level() != "bwrap":
        pytest.skip("no bubblewrap here")
    if not use_bwrap:
        if os.geteuid() != 0:
            pytest.skip("the mode without bubblewrap that contains a program is the uid-only mode of root")
        monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    code = _forge(every=False) if language == "c" else _FORGE_PY
    result = _judge(ContestJudge(tmp_path / "cache", workers=1), two_second_problem, language, code)
    assert result.verdict == Verdict.RE, result.summary()
    assert result.tests[0].detail.startswith(f"signal {signal.SIGSEGV}"), result.summary()
    assert "Permission denied" in result.tests[0].detail or "PermissionError" in result.tests[0].detail


@needs_x86_64
@pytest.mark.parametrize(
    "answer,ending,verdict,detail",
    [
        ("7", "*(volatile int *)0 = 1", Verdict.RE, f"signal {signal.SIGSEGV}"),
        ("7", "return 3", Verdict.RE, "exit status 3"),
        ("8", "return 0", Verdict.WA, "output differs"),
    ],
    ids=["crash", "exit-3", "wrong-answer"],
)
def test_writing_the_memory_of_every_process_it_sees_changes_no_verdict(
    judge, two_second_problem, answer, ending, verdict, detail
):
    """The same code written into /proc/<pid>/mem of every process in /proc/[0-9]* (the runner, and bubblewrap's
    init before it was removed): every write fails, and each program gets the verdict its own ending earns."""
    result = _judge(judge, two_second_problem, "c", _forge(every=True, answer=answer, ending=ending))
    assert result.verdict == verdict, result.summary()
    assert result.tests[0].detail.startswith(detail), result.summary()
    assert "bytes" not in result.tests[0].detail, result.summary()  # no write went through


_REACH_RUNNER_C = r"""#define _GNU_SOURCE
#include <dirent.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
int main(void) {
    int reached = 0, fds = 0;
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while ((e = readdir(d))) if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d)) {
        fds++;
        if (atoi(e->d_name) > 2) printf("descriptor %s\n", e->d_name);
    }
    closedir(d);
    /* the runner's report descriptor, reopened through /proc, and its memory */
    char path[64];
    snprintf(path, sizeof path, "/proc/%d/fd", getppid());
    if ((d = opendir(path))) {
        while ((e = readdir(d))) if (e->d_name[0] != '.') {
            snprintf(path, sizeof path, "/proc/%d/fd/%s", getppid(), e->d_name);
            int w = open(path, O_WRONLY | O_NONBLOCK);
            if (w >= 0) { printf("reopened the runner's descriptor %s\n", e->d_name); reached++; close(w); }
        }
        closedir(d);
    }
    snprintf(path, sizeof path, "/proc/%d/mem", getppid());
    int m = open(path, O_RDWR);
    if (m >= 0) { puts("opened the runner's memory"); reached++; }
    if (fds == 3 && reached == 0) puts("7");
    return 0;
}
"""


@pytest.mark.parametrize("use_bwrap", [True, False], ids=["bwrap", "uid-only"])
def test_the_program_holds_no_descriptor_but_its_standard_streams_and_cannot_reopen_the_runner_s(
    tmp_path, two_second_problem, monkeypatch, use_bwrap
):
    """The verdict travels on a pipe the program has no descriptor for (0, 1 and 2 only), and it cannot get one
    through /proc/<runner>/fd or write the runner's memory: it prints 7 only then."""
    from cojudge_assets.core.execution import sandbox

    if use_bwrap and isolation_level() != "bwrap":
        pytest.skip("no bubblewrap here")
    if not use_bwrap:
        if os.geteuid() != 0:
            pytest.skip("the mode without bubblewrap that contains a program is the uid-only mode of root")
        monkeypatch.setattr(sandbox, "bwrap_path", lambda: None)
    result = _judge(ContestJudge(tmp_path / "cache", workers=1), two_second_problem, "c", _REACH_RUNNER_C)
    assert result.verdict == Verdict.AC, result.summary()


@pytest.mark.skipif(isolation_level() != "bwrap", reason="the runner is process 1 under bubblewrap only")
def test_under_bubblewrap_the_runner_is_the_only_other_process_the_program_sees(judge, two_second_problem):
    """No bubblewrap init beside the runner (it ran outside the seccomp filter and its memory was writable)."""
    code = r"""#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
int main(void) {
    DIR *d = opendir("/proc");
    struct dirent *e;
    int others = 0;
    while ((e = readdir(d))) if (atoi(e->d_name) > 0 && atoi(e->d_name) != getpid()) others++;
    if (others == 1 && getppid() == 1) puts("7");
    else printf("%d other processes, parent %d\n", others, getppid());
    return 0;
}
"""
    result = _judge(judge, two_second_problem, "c", code)
    assert result.verdict == Verdict.AC, result.summary()


@needs_x86_64
def test_the_forge_fails_with_the_seccomp_filter_off_too(tmp_path, two_second_problem, monkeypatch):
    """The runner's protection is not the filter's: with COJUDGE_SECCOMP=off the write to its memory still fails."""
    monkeypatch.setenv("COJUDGE_SECCOMP", "off")
    result = _judge(ContestJudge(tmp_path / "cache", workers=1), two_second_problem, "c", _forge(every=True))
    assert "seccomp" not in result.isolation
    assert result.verdict == Verdict.RE, result.summary()
    assert result.tests[0].detail.startswith(f"signal {signal.SIGSEGV}"), result.summary()
