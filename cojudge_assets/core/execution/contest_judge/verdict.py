"""What a finished run means: the verdicts, the records of a judged test and submission, and the rules
that turn one sandbox run into a test's verdict.

Owns the verdict vocabulary (AC, WA, TLE, RE, CE and JUDGE_ERROR), :class:`TestOutcome` and
:class:`JudgeResult`, the Kattis token comparison of an output with its answer, and :func:`outcome_of`,
which applies the rules of :mod:`cojudge_assets.core.execution.contest_judge` (memory kill is RE, CPU over the
limit is TLE, output over its cap is WA, a file of its own over the file-size limit is RE, ...). Pure:
nothing here runs a program.
"""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from enum import StrEnum

from cojudge_assets.core.execution.sandbox import Limits, RunResult
from cojudge_assets.core.ingest.kattis import TestCase


class Verdict(StrEnum):
    AC = "AC"
    WA = "WA"
    TLE = "TLE"
    RE = "RE"
    CE = "CE"
    JUDGE_ERROR = "JUDGE_ERROR"  # the judge could not run it (not the program's verdict); never cached


@dataclass
class TestOutcome:
    test: str
    verdict: Verdict
    cpu_s: float
    wall_s: float
    detail: str = ""
    output_sha256: str = ""  # of the program's stdout, when it ran to the end (a perturbation control compares it)


@dataclass
class JudgeResult:
    verdict: Verdict
    language: str
    tests: list[TestOutcome] = field(default_factory=list)
    compile_message: str = ""
    compile_cached: bool = False
    isolation: str = ""  # mode, filter, cgroup hierarchy: "bwrap + seccomp, cgroup v1+v2" (sandbox.Isolation)
    from_cache: bool = False  # the whole result was read from the result cache (nothing ran)
    isolation_limits: dict[str, str] = field(default_factory=dict)  # how each limit was enforced
    error: str = ""  # why the verdict is JUDGE_ERROR

    @property
    def max_cpu_s(self) -> float:
        return max((t.cpu_s for t in self.tests), default=0.0)

    @property
    def first_failure(self) -> TestOutcome | None:
        return next((t for t in self.tests if t.verdict != Verdict.AC), None)

    def summary(self) -> dict:
        return {
            "verdict": str(self.verdict),
            "language": self.language,
            "tests": [
                {"test": t.test, "verdict": str(t.verdict), "cpu_s": round(t.cpu_s, 3), "detail": t.detail}
                for t in self.tests
            ],
            "compile_message": self.compile_message[:2000],
            "isolation": self.isolation,
            **({"error": self.error} if self.error else {}),
        }


def tokens_match(output: bytes, answer: bytes, *, float_tolerance: float | None = None) -> bool:
    """Kattis default comparison: whitespace-separated tokens equal (numbers within tolerance if given).

    >>> tokens_match(b"1 2\\n", b"1\\n2"), tokens_match(b"1.0001", b"1.0", float_tolerance=1e-3)
    (True, True)
    """
    out, ans = output.split(), answer.split()
    if len(out) != len(ans):
        return False
    if float_tolerance is None:
        return out == ans
    for o, a in zip(out, ans):
        if o == a:
            continue
        try:
            fo, fa = float(o), float(a)
        except ValueError:
            return False
        if abs(fo - fa) > float_tolerance * max(1.0, abs(fa)):
            return False
    return True


def outcome_of(result: RunResult, test: TestCase, limits: Limits, float_tolerance: float | None) -> TestOutcome:
    """The verdict of one finished run (see :mod:`cojudge_assets.core.execution.contest_judge` for the rules)."""
    cpu, wall = result.cpu_s, result.wall_s
    notes = "; ".join(
        n
        for n in (
            f"{result.pids_limit_hits} forks refused at the process limit" if result.pids_limit_hits else "",
            "some of its processes could not be removed" if result.leftover else "",
        )
        if n
    )
    suffix = f" ({notes})" if notes else ""
    if result.memory_limit_hit:  # first: the kill came when it happened, and whatever came later followed from it
        peak = f"peak {result.memory_peak_bytes / 2**20:.0f} MiB, " if result.memory_peak_bytes else ""
        return TestOutcome(
            test.name,
            Verdict.RE,
            cpu,
            wall,
            f"memory limit exceeded: the run's {limits.cgroup_memory_bytes >> 20} MiB "
            + (
                f"({peak}processes killed: {result.oom_kills}){suffix}"
                if result.oom_kills
                else f"({peak}full of its own memory when stopped at the CPU limit, {cpu:.2f}s){suffix}"
            ),
        )
    if result.wall_killed:
        return TestOutcome(
            test.name, Verdict.TLE, cpu, wall, f"killed at the wall-clock limit {limits.wall_s}s{suffix}"
        )
    if result.cpu_limit_hit:
        if cpu >= limits.cpu_s:
            return TestOutcome(
                test.name,
                Verdict.TLE,
                cpu,
                wall,
                f"killed at the CPU limit ({cpu:.2f}s used, limit {limits.cpu_s}s){suffix}",
            )
        # SIGXCPU below the limit as measured: the kernel's tick-sampled count ran more than the backstop's margin
        # ahead of the measured time (or the program sent the signal itself); said as it is, never as "at the limit"
        return TestOutcome(
            test.name,
            Verdict.TLE,
            cpu,
            wall,
            f"stopped by the kernel's per-process CPU backstop (RLIMIT_CPU {limits.rlimit_cpu_s}s, counted in "
            f"scheduler ticks, SIGXCPU) with {cpu:.2f}s measured, limit {limits.cpu_s}s{suffix}",
        )
    if cpu > limits.cpu_s:
        return TestOutcome(test.name, Verdict.TLE, cpu, wall, f"CPU {cpu:.2f}s over limit {limits.cpu_s}s{suffix}")
    if result.output_limit_hit(limits):
        return TestOutcome(test.name, Verdict.WA, cpu, wall, f"output limit exceeded{suffix}")
    if result.file_size_limit_hit:  # a file of its own (in /tmp, in its box when writable), not its output
        return TestOutcome(
            test.name,
            Verdict.RE,
            cpu,
            wall,
            f"file size limit exceeded: a file it wrote reached {limits.output_bytes / 2**20:g} MiB (SIGXFSZ){suffix}",
        )
    if result.runner_lost:
        return TestOutcome(
            test.name,
            Verdict.RE,
            cpu,
            wall,
            f"the program killed its runner (a kill of its parent or of every process){suffix}",
        )
    if not result.ok:
        how = f"signal {result.signal}" if result.signal else f"exit status {result.exit_code}"
        return TestOutcome(test.name, Verdict.RE, cpu, wall, f"{how}: {result.stderr_text(300).strip()}{suffix}")
    output = result.stdout_path.read_bytes()
    digest = hashlib.sha256(output).hexdigest()
    if tokens_match(output, test.answer_path.read_bytes(), float_tolerance=float_tolerance):
        return TestOutcome(test.name, Verdict.AC, cpu, wall, output_sha256=digest)
    return TestOutcome(test.name, Verdict.WA, cpu, wall, "output differs from the answer", output_sha256=digest)
