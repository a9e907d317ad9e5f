"""The sandbox contains hostile programs, each within a bounded time.

Every test runs a real program through the contest judge (the only way untrusted
code is run) and checks both the verdict and that the harm did not happen.
"""

from __future__ import annotations

import os
import resource
import signal
import socket
import threading
import time
import uuid
from pathlib import Path

import pytest

from cojudge_assets.core.execution.cgroups import cgroup_support
from cojudge_assets.core.execution.contest_judge import Verdict
from cojudge_assets.core.execution.sandbox import _UID_BASE, isolation_level
from cojudge_assets.core.execution.syscall_filter import filter_support


def _sandbox_processes() -> list[int]:
    """Live (not zombie) processes under one of the dedicated uids this test process hands out."""
    low = _UID_BASE + (os.getpid() % 65536) * 4096
    alive = []
    for entry in Path("/proc").iterdir():
        if entry.name.isdigit():
            try:
                state = (entry / "stat").read_text().rsplit(")", 1)[1].split()[0]
                if low <= entry.stat().st_uid < low + 4096 and state != "Z":
                    alive.append(int(entry.name))
            except (FileNotFoundError, ProcessLookupError, IndexError):
                continue
    return alive


def _judge_timed(judge, problem, language, code):
    started = time.monotonic()
    result = judge.judge(problem, language, code, tests=problem.samples)
    return result, time.monotonic() - started


def test_isolation_is_reported(judge, sum_problem):
    result = judge.judge(sum_problem, "python", "print(7)\n", tests=sum_problem.samples)
    mode, cgroup = result.isolation.split(", cgroup ")
    seccomp = filter_support().bpf is not None
    assert mode == isolation_level() + (" + seccomp" if seccomp else "")
    assert isolation_level() in ("bwrap", "uid-only", "rlimits-only")
    assert cgroup == cgroup_support().version
    assert {"memory", "processes", "cpu", "kill", "files", "network", "syscalls"} <= set(result.isolation_limits)
    assert result.isolation_limits["syscalls"].startswith("seccomp deny list" if seccomp else "none: ")
    if cgroup_support().memory is not None:
        assert "256 MiB" not in result.isolation_limits["memory"].split(" + ")[0]  # the run's: limit + slack
        assert "for the whole run" in result.isolation_limits["memory"]


def test_infinite_loop_is_stopped_at_the_cpu_limit(judge, sum_problem):
    result, elapsed = _judge_timed(judge, sum_problem, "c", "int main(void){volatile long x=0;for(;;)x++;}\n")
    assert result.verdict == Verdict.TLE
    assert elapsed < 2 * sum_problem.time_limit_s + 5


def test_sleeping_program_is_stopped_by_the_wall_clock(judge, sum_problem):
    result, elapsed = _judge_timed(judge, sum_problem, "python", "import time\ntime.sleep(600)\n")
    assert result.verdict == Verdict.TLE
    assert elapsed < 2 * sum_problem.time_limit_s + 5


def test_fork_bomb_is_contained_and_leaves_nothing_behind(judge, sum_problem):
    code = "#include <unistd.h>\nint main(void){for(;;) fork();}\n"
    result, elapsed = _judge_timed(judge, sum_problem, "c", code)
    assert result.verdict in (Verdict.TLE, Verdict.RE)
    assert elapsed < 2 * sum_problem.time_limit_s + 5
    deadline = time.monotonic() + 5
    while _sandbox_processes() and time.monotonic() < deadline:
        time.sleep(0.2)
    assert _sandbox_processes() == []


def test_memory_hog_fails_at_the_memory_limit(judge, sum_problem):
    code = (
        "#include <stdlib.h>\n#include <string.h>\n#include <stdio.h>\n"
        'int main(void){ for(int i=0;i<64;i++){ char*p=malloc(64<<20); memset(p,1,64<<20);} puts("7"); }\n'
    )
    result, elapsed = _judge_timed(judge, sum_problem, "c", code)
    assert result.verdict == Verdict.RE
    assert elapsed < 10
    py = "blob = bytearray(4 * 1024 * 1024 * 1024)\nprint(7)\n"
    assert _judge_timed(judge, sum_problem, "python", py)[0].verdict == Verdict.RE


def test_network_is_unreachable(judge, sum_problem):
    """A listener on the host's loopback must never see the sandboxed program connect."""
    server = socket.socket()
    server.bind(("127.0.0.1", 0))
    server.listen(1)
    server.settimeout(8)
    port = server.getsockname()[1]
    accepted = []
    thread = threading.Thread(target=lambda: accepted.append(_accept(server)), daemon=True)
    thread.start()
    code = (
        "import socket\ntry:\n"
        f"    socket.create_connection(('127.0.0.1', {port}), timeout=3)\n    print('connected')\n"
        "except OSError:\n    print(7)\n"
    )
    result, elapsed = _judge_timed(judge, sum_problem, "python", code)
    thread.join(10)
    server.close()
    assert result.verdict == Verdict.AC  # printed 7: the connection failed
    assert accepted == [None]
    assert elapsed < 10


def _accept(server: socket.socket):
    try:
        conn, _ = server.accept()
        conn.close()
        return "connection"
    except OSError:
        return None


def test_writes_outside_its_directory_fail(judge, sum_problem, tmp_path):
    target = tmp_path / "open"
    target.mkdir()
    os.chmod(target, 0o777)  # even a world-writable folder of the host stays out of reach
    token = uuid.uuid4().hex
    victims = [target / f"pwned-{token}", Path(f"/tmp/cojudge-escape-{token}"), Path(f"/var/tmp/escape-{token}")]
    lines = "\n".join(f"    try_write({str(v)!r})" for v in victims)
    code = (
        "def try_write(p):\n    try:\n        open(p, 'w').write('x')\n    except OSError:\n        pass\n"
        f"if True:\n{lines}\nprint(7)\n"
    )
    result, _ = _judge_timed(judge, sum_problem, "python", code)
    assert result.verdict == Verdict.AC
    assert not any(v.exists() for v in victims)


def test_output_flood_is_capped(judge, sum_problem):
    code = '#include <stdio.h>\nint main(void){for(;;) fputs("yyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyyy\\n", stdout);}\n'
    result, elapsed = _judge_timed(judge, sum_problem, "c", code)
    assert result.verdict == Verdict.WA
    assert "output limit" in result.tests[0].detail
    assert elapsed < 10


def test_no_secrets_in_the_environment(judge, sum_problem, monkeypatch):
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test-should-not-leak")
    code = "import os\nprint(7 if not any('sk-test' in v for v in os.environ.values()) else 0)\n"
    assert judge.judge(sum_problem, "python", code, tests=sum_problem.samples).verdict == Verdict.AC


def test_hidden_tests_are_not_readable(judge, sum_problem):
    answer = sum_problem.secret[0].answer_path
    code = f"try:\n    open({str(answer)!r}).read()\n    print('leaked')\nexcept OSError:\n    print(7)\n"
    assert judge.judge(sum_problem, "python", code, tests=sum_problem.samples).verdict == Verdict.AC


@pytest.mark.skipif(isolation_level() != "bwrap", reason="needs bubblewrap for a pid namespace")
def test_program_sees_only_its_own_processes(judge, sum_problem):
    code = "import os\nprint(7 if len([p for p in os.listdir('/proc') if p.isdigit()]) <= 3 else 0)\n"
    assert judge.judge(sum_problem, "python", code, tests=sum_problem.samples).verdict == Verdict.AC


def test_the_runner_is_built_once_when_the_first_runs_start_together(tmp_path):
    """A fresh cache and one worker thread per core asking for the runner at once (it raced, in a cold run)."""
    from concurrent.futures import ThreadPoolExecutor

    from cojudge_assets.core.execution import sandbox

    with ThreadPoolExecutor(max_workers=4) as pool:
        paths = list(pool.map(lambda _: sandbox.runner_path(tmp_path / "cache"), range(4)))
    assert len(set(paths)) == 1 and os.access(paths[0], os.X_OK)
    assert len(list((tmp_path / "cache" / "runner").iterdir())) == 1


_THREADED = {
    "c": r"""#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
static long sum[4];
static void *work(void *arg) { long i = (long)arg; sum[i] = i; return NULL; }
int main(void) {
    long a, b; if (scanf("%ld %ld", &a, &b) != 2) return 1;
    pthread_t t[4]; pthread_attr_t small; pthread_attr_init(&small); pthread_attr_setstacksize(&small, 1 << 20);
    for (long i = 0; i < 4; i++) if (pthread_create(&t[i], &small, work, (void *)i)) return 3;
    for (int i = 0; i < 4; i++) pthread_join(t[i], NULL);
    if (system("/bin/true") != 0) return 2;  /* posix_spawn: clone3, then clone */
    printf("%ld\n", a + b + sum[0] * sum[3]);
}
""",
    "cpp": r"""#include <bits/stdc++.h>
#include <pthread.h>
static std::atomic<long> n{0};
static void *work(void *) { n += 1; return nullptr; }
int main() {
    long a, b; std::cin >> a >> b;
    pthread_attr_t small; pthread_attr_init(&small); pthread_attr_setstacksize(&small, 1 << 20);
    std::vector<pthread_t> pool(4);
    for (auto &t : pool) if (pthread_create(&t, &small, work, nullptr)) return 3;
    for (auto &t : pool) pthread_join(t, nullptr);
    std::cout << a + b + (n - 4) << "\n";
}
""",
    "java": """import java.util.*;
import java.util.stream.*;
public class Main {
    public static void main(String[] args) throws Exception {
        Scanner in = new Scanner(System.in);
        long a = in.nextLong(), b = in.nextLong();
        Thread t = new Thread(() -> {});
        t.start(); t.join();
        long zero = IntStream.range(0, 1000).parallel().map(i -> 0).sum();
        System.out.println(a + b + zero);
    }
}
""",
    "python": "import subprocess, threading\n"
    "threading.stack_size(1 << 20)\n"
    "a, b = map(int, input().split())\n"
    "t = threading.Thread(target=lambda: None); t.start(); t.join()\n"
    "subprocess.run(['/bin/true'], check=True)\n"
    "print(a + b)\n",
}


@pytest.mark.parametrize("language", sorted(_THREADED))
def test_compilers_and_runtimes_work_under_the_seccomp_filter(judge, sum_problem, language):
    """gcc, g++, javac, java and python3 compile and run programs that start threads and processes under the
    filter (threads go through clone3, refused with ENOSYS, and glibc's fall-back to clone). The native threads
    ask for a 1 MiB stack: glibc's default is RLIMIT_STACK, which the sandbox sets to the memory limit, so a
    default thread's stack cannot fit the address-space limit (with or without the filter)."""
    result, _ = _judge_timed(judge, sum_problem, language, _THREADED[language])
    assert result.verdict == Verdict.AC, result.summary()
    assert ("+ seccomp" in result.isolation) == (filter_support().bpf is not None)


# -- the CPU limit's figure (issue 34) -------------------------------------------------------------------------


def _ended(tmp_path: Path, *, sig: int | None, cpu_s: float, cpu_killed: bool = False):
    from cojudge_assets.core.execution.sandbox import RunResult

    for name in ("out", "err"):
        (tmp_path / name).write_text("")
    return RunResult(
        exit_code=None,
        signal=sig,
        cpu_s=cpu_s,
        wall_s=cpu_s + 0.1,
        wall_killed=False,
        stdout_path=tmp_path / "out",
        stderr_path=tmp_path / "err",
        cpu_killed=cpu_killed,
        cpu_limit_s=2.0,
    )


def _outcome(tmp_path: Path, result):
    from cojudge_assets.core.execution.contest_judge.verdict import outcome_of
    from cojudge_assets.core.execution.sandbox import Limits
    from cojudge_assets.core.ingest.kattis import TestCase

    (tmp_path / "1.in").write_text("3 4\n")
    (tmp_path / "1.ans").write_text("7\n")
    test = TestCase(name="sample/1", input_path=tmp_path / "1.in", answer_path=tmp_path / "1.ans")
    return outcome_of(result, test, Limits(cpu_s=2.0), None)


def test_rlimit_cpu_is_a_backstop_above_the_limit():
    """The kernel's RLIMIT_CPU fires on a tick-sampled count that ran up to 19% ahead of the measured CPU time on
    this machine (a 2 s program stopped at 1.68-1.88 s measured): its soft limit is at least a quarter and a
    second past the limit, so the measured figure decides."""
    from cojudge_assets.core.execution.sandbox import Limits, _launch_prefix

    for cpu_s, soft in ((0.5, 2), (1.0, 2), (2.0, 3), (2.5, 4), (10.0, 13)):
        limits = Limits(cpu_s=cpu_s)
        assert limits.rlimit_cpu_s == soft
        assert limits.rlimit_cpu_s >= 1.25 * cpu_s and limits.rlimit_cpu_s >= cpu_s + 1
        assert f"--cpu={soft}:{soft + 1}" in _launch_prefix(limits, None, use_bwrap=True)


def test_a_kill_at_the_cpu_limit_never_says_less_than_the_limit(tmp_path):
    """ "killed at the CPU limit (1.81s used, limit 2.0s)" was printed for a SIGXCPU the kernel sent on its tick
    count: below the limit as measured, the detail says what stopped it and what was measured, never "at the
    limit"; a SIGKILL before the limit is not a CPU limit at all (the program's own, RE)."""
    over = _outcome(tmp_path, _ended(tmp_path, sig=signal.SIGXCPU, cpu_s=2.31))
    assert over.verdict == Verdict.TLE and over.detail.startswith("killed at the CPU limit (2.31s used, limit 2.0s)")
    watched = _outcome(tmp_path, _ended(tmp_path, sig=signal.SIGKILL, cpu_s=2.004, cpu_killed=True))
    assert watched.verdict == Verdict.TLE and watched.detail.startswith("killed at the CPU limit (2.00s used")
    early = _outcome(tmp_path, _ended(tmp_path, sig=signal.SIGXCPU, cpu_s=1.81))
    assert early.verdict == Verdict.TLE
    assert "at the CPU limit" not in early.detail and "1.81s measured, limit 2.0s" in early.detail, early.detail
    own_kill = _outcome(tmp_path, _ended(tmp_path, sig=signal.SIGKILL, cpu_s=0.1))
    assert own_kill.verdict == Verdict.RE and own_kill.detail.startswith(f"signal {signal.SIGKILL}"), own_kill


# -- a run stopped at its CPU limit while its memory was full (the CI's JVM, 2026-12-05) ----------------------


def test_a_cpu_kill_while_the_run_s_own_memory_filled_its_limit_is_the_memory_limit(tmp_path):
    """A JVM allocating 2 GB off its heap under a 512 MiB run limit was reported TLE ("killed at the CPU limit
    (2.06s used)") on a CI machine: the kernel reclaimed the JVM's file pages at the limit, which it read back at
    once, until the CPU limit came before the OOM killer. The watchdog marks such a run; it is the memory limit."""
    import dataclasses

    full = dataclasses.replace(_ended(tmp_path, sig=signal.SIGKILL, cpu_s=2.06, cpu_killed=True), memory_full=True)
    assert full.memory_limit_hit and not full.cpu_limit_hit and not full.ok
    outcome = _outcome(tmp_path, full)
    assert outcome.verdict == Verdict.RE, outcome
    assert outcome.detail.startswith("memory limit exceeded: the run's"), outcome.detail
    assert "stopped at the CPU limit" in outcome.detail
    plain = _outcome(tmp_path, _ended(tmp_path, sig=signal.SIGKILL, cpu_s=2.06, cpu_killed=True))
    assert plain.verdict == Verdict.TLE, plain


@pytest.mark.parametrize("version", ["v1", "v2"])
def test_memory_full_needs_the_limit_reached_and_the_program_s_own_memory_filling_it(tmp_path, version):
    """Reaching the limit with page cache (a large input read) is not full, nor is much memory never at the
    limit: both must hold, within the larger of 32 MiB and a tenth of the limit."""
    from cojudge_assets.core.execution.cgroups import CgroupSupport, Hierarchy, RunCgroup

    group = RunCgroup(CgroupSupport(memory=Hierarchy(version, tmp_path)), memory_bytes=512 << 20, pids_max=64)
    folder = group.groups[tmp_path]
    folder.mkdir()

    def state(reached: int, anon_mib: int, shmem_mib: int = 0, refaults: int = 0) -> bool:
        if version == "v2":
            (folder / "memory.events").write_text(f"low 0\nhigh 0\nmax {reached}\noom 0\noom_kill 0\n")
            (folder / "memory.stat").write_text(
                f"anon {anon_mib << 20}\nfile {200 << 20}\nshmem {shmem_mib << 20}\n"
                f"workingset_refault_file {refaults}\n"
            )
        else:
            (folder / "memory.failcnt").write_text(f"{reached}\n")
            (folder / "memory.stat").write_text(
                f"cache {200 << 20}\nrss 0\ntotal_cache {200 << 20}\ntotal_rss {anon_mib << 20}\n"
                f"total_shmem {shmem_mib << 20}\ntotal_workingset_refault_file {refaults}\n"
            )
        return group.memory_full()

    pages_32_mib = (32 << 20) // resource.getpagesize()
    assert state(reached=12, anon_mib=450)  # 512 - 64 MiB: an eighth of the limit is the margin
    assert state(reached=3, anon_mib=380, shmem_mib=80)  # tmpfs pages are the program's own too
    assert state(reached=40, anon_mib=300, refaults=pages_32_mib)  # reading back its evicted code: thrashing
    assert not state(reached=12, anon_mib=300, refaults=pages_32_mib // 4)  # the limit reached through page cache
    assert not state(reached=0, anon_mib=500, refaults=pages_32_mib)  # never at the limit
    assert not RunCgroup(CgroupSupport(), memory_bytes=512 << 20, pids_max=64).memory_full()  # no memory group
