"""The built-in contest judge: compile a submission, run it on a problem's tests, give a verdict.

Verdicts are the five the study uses: AC, WA, TLE, RE, CE, and ``JUDGE_ERROR``
when the judge itself could not run a submission (the sandbox could not start;
the reason is in the test's detail or ``JudgeResult.error``): never an exception
to the caller of :meth:`ContestJudge.judge` or :meth:`ContestJudge.judge_many`,
never cached, so a re-run tries again. Tests run in judging
order (samples, then secret tests, each in file-name order) and judging stops at
the first test that is not AC, as contest systems do; that test decides the
verdict. An output over the output cap counts as WA ("output limit exceeded").
A memory-limit kill is RE, as the corpora record it (CodeNet's "Memory Limit
Exceeded" is RE): seen by the run's control group (its ``oom_kill`` count), the
detail says "memory limit exceeded"; without a control group the program
crashes when an allocation over its address-space limit fails. A program that
kills its own runner (``kill(getppid(), 9)``, ``kill(-1, 9)``) is RE.

Time is CPU time (user + system) of the whole process tree, compared with the
problem's limit: with a control group, every process the run started, reaped
or not (without one, the processes it reaped); a wall-clock timer at
``2 * limit + 1`` s catches programs that sleep or block. Java gets the same
limit: the JVM runs with serial GC and the C1 compiler only, so start-up costs
about 0.3 s of CPU. Memory is the problem's limit for the whole run (every
process); the JVM gets its heap (``-Xmx``) at the limit and the run
``JAVA_RUN_OVERHEAD_MB`` more for its own code, threads and off-heap memory.

Compilation is cached by the hash of (language, compiler command, code): the
same code is compiled once, also across processes (the cache is a folder).
Java programs judged together are compiled in batches, one JVM per worker
running javac on many programs (:meth:`ContestJudge.precompile`), with the
same classes and messages as the javac command. Judge results are cached the
same way, by (compiled program, tests, limits, stop rule), and so is each
test's outcome, by (compiled program, the test's input and answer, limits):
a re-run of the label audit or the perturbation study after a data fix
re-judges only programs it has not judged before, a mutant the compiler turns
into its seed's very binary is not run again, and ``sample-exec`` does not run
again the samples the label audit ran.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from enum import StrEnum
from pathlib import Path
from typing import Iterable

from cojudge_assets.core.kattis import ProblemPackage, TestCase
from cojudge_assets.core.sandbox import (Limits, RunResult, SandboxError, isolation_level, isolation_record,
                                         readable_copy, run_sandboxed)


class Verdict(StrEnum):
    AC = "AC"
    WA = "WA"
    TLE = "TLE"
    RE = "RE"
    CE = "CE"
    JUDGE_ERROR = "JUDGE_ERROR"  # the judge could not run it (not the program's verdict); never cached


LANGUAGE_ALIASES = {
    "c": "c", "gnu c": "c", "gnu c11": "c", "c11": "c", "c99": "c", "gcc": "c",
    "c++": "cpp", "cpp": "cpp", "g++": "cpp", "gnu c++": "cpp", "gnu c++17": "cpp", "c++17": "cpp",
    "c++14": "cpp", "c++11": "cpp", "c++20": "cpp", "gnu c++20": "cpp", "cc": "cpp", "cxx": "cpp",
    "java": "java", "java 17": "java", "java17": "java", "java 8": "java", "java8": "java", "java 11": "java",
    "python": "python", "python3": "python", "python 3": "python", "py": "python", "pypy3": "python",
}
EXTENSIONS = {"c": "c", "cpp": "cpp", "java": "java", "python": "py"}
EXTENSION_LANGUAGE = {"c": "c", "cpp": "cpp", "cc": "cpp", "cxx": "cpp", "java": "java", "py": "python"}


def normalize_language(name: str) -> str:
    """Map a language label ("GNU C++17", "Java 8", "Python3", "C") to c/cpp/java/python.

    >>> normalize_language("GNU C++17"), normalize_language("Python 3")
    ('cpp', 'python')
    """
    key = re.sub(r"\s+", " ", re.sub(r"\(.*?\)", " ", name.lower())).strip()
    if key in LANGUAGE_ALIASES:
        return LANGUAGE_ALIASES[key]
    for prefix, lang in (("c++", "cpp"), ("g++", "cpp"), ("java", "java"), ("python", "python"), ("pypy", "python")):
        if key.startswith(prefix):
            return lang
    if re.fullmatch(r"(gnu )?c\d*", key):
        return "c"
    raise ValueError(f"language {name!r} is not one the contest judge runs (expected C, C++, Java or Python)")


def java_main_class(code: str) -> str:
    """The public class to run (contest convention: Main).

    >>> java_main_class("public final class Solver { }")
    'Solver'
    """
    match = re.search(r"public\s+(?:final\s+|abstract\s+)*class\s+([A-Za-z_$][\w$]*)", code)
    return match.group(1) if match else "Main"


def python_executable() -> str:
    """The interpreter that runs Python submissions: the system one if present, else this one."""
    return "/usr/bin/python3" if os.path.exists("/usr/bin/python3") else os.path.realpath(sys.executable)


def runtime_binds(language: str) -> tuple[str, ...]:
    """Host folders a language's runtime needs inside the sandbox beyond the system ones."""
    if language == "python":
        prefix = os.path.dirname(os.path.dirname(python_executable()))
        return () if prefix.startswith("/usr") else (prefix,)
    return ()


def _stdcxx_header() -> Path | None:
    """The system's ``bits/stdc++.h`` (as g++ finds it), or None."""
    done = subprocess.run(["g++", *CXX_FLAGS, "-H", "-fsyntax-only", "-x", "c++", "-"],
                          input=b"#include <bits/stdc++.h>\n", capture_output=True, timeout=120)
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith(". ") and line.endswith("bits/stdc++.h"):
            return Path(line[2:].strip())
    return None


JAVA_RUN_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xss64m"]
# the JVM's own memory beside its heap (code, metaspace, threads, GC tables, direct buffers): a JVM filling a
# 256 MB heap peaks at 270 MiB (measured in the run's cgroup); the rest is room for bigger programs
JAVA_RUN_OVERHEAD_MB = 256
COMPILE_LIMITS = Limits(cpu_s=60, wall_s=120, memory_mb=4096, max_procs=64, output_bytes=256 << 20,
                        tmp_bytes=512 << 20)


@dataclass(frozen=True)
class LanguageSpec:
    source_name: str
    compile_argv: list[str] | None
    run_argv: list[str]

    def key(self) -> str:
        return json.dumps([self.source_name, self.compile_argv, self.run_argv])


CXX_FLAGS = ["-O2", "-std=gnu++17"]


PCH_IN_BOX = "/.cojudge/pch"


def language_spec(language: str, code: str, memory_mb: int, *, pch: bool = False) -> LanguageSpec:
    """How to compile and run ``code``; paths are the box's as the program sees it.

    ``pch`` (C++): search PCH_IN_BOX first, where the sandbox mounts ``bits/stdc++.h.gch`` built with the
    same flags, so the header most contest programs include is not parsed again for every program. GCC
    checks a precompiled header's validity and uses the real header when it cannot use it.
    """
    if language == "c":
        return LanguageSpec("main.c", ["gcc", "-O2", "-std=gnu11", "-o", "prog", "main.c", "-lm"], ["./prog"])
    if language == "cpp":
        include = ["-I", PCH_IN_BOX] if pch else []
        return LanguageSpec("main.cpp", ["g++", *CXX_FLAGS, *include, "-o", "prog", "main.cpp"], ["./prog"])
    if language == "java":
        cls = java_main_class(code)
        return LanguageSpec(
            f"{cls}.java",
            # -g:none: no line numbers in the classes, so a comment-only edit compiles to identical classes
            # C1 only for javac's own JVM: a 40% shorter compile of a contest-sized program
            ["javac", "-J-Xmx512m", "-J-XX:+UseSerialGC", "-J-XX:TieredStopAtLevel=1", "-g:none", "-encoding",
             "UTF-8", f"{cls}.java"],
            ["java", *JAVA_RUN_FLAGS, f"-Xmx{memory_mb}m", "-cp", ".", cls],
        )
    if language == "python":
        py = python_executable()
        check = "import sys; compile(open('main.py','rb').read(), 'main.py', 'exec')"
        return LanguageSpec("main.py", [py, "-I", "-B", "-c", check], [py, "-I", "-B", "main.py"])
    raise ValueError(f"unknown language {language!r}")


JAVA_BATCH_FROM = 4  # fewer new Java programs than this are compiled one JVM each (a batch's JVM costs one)
JAVA_BATCH_PROGRAM_S = 60.0  # a program javac spends longer on (wall clock) ends its batch; compile() redoes it
_JAVA_PACKAGE = re.compile(r"^\s*package\s+[\w.]+\s*;", re.MULTILINE)
BATCH_JAVAC_SOURCE = Path(__file__).parent / "native" / "BatchJavac.java"


@functools.lru_cache(maxsize=1)
def _batch_javac() -> Path | None:
    """``BatchJavac.class`` (native/BatchJavac.java) built once per source version, or None without a JDK.

    Our own source, compiled outside the sandbox like the runner; the programs it compiles never leave it.
    """
    if shutil.which("javac") is None:
        return None
    digest = hashlib.sha256(BATCH_JAVAC_SOURCE.read_bytes()).hexdigest()[:16]
    base = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cojudge" / "javac"
    built = base / digest / "BatchJavac.class"
    if not built.is_file():
        base.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=base))
        done = subprocess.run(["javac", "-d", str(staging), str(BATCH_JAVAC_SOURCE)], capture_output=True,
                              check=False, timeout=300)
        if done.returncode != 0:
            shutil.rmtree(staging, ignore_errors=True)
            return None
        for path in (staging, staging / "BatchJavac.class"):
            path.chmod(0o755 if path.is_dir() else 0o644)
        try:
            staging.rename(built.parent)
        except OSError:  # another process built it first
            shutil.rmtree(staging, ignore_errors=True)
    return built


@dataclass
class Compiled:
    ok: bool
    artifact_dir: Path
    message: str
    cached: bool
    artifact_sha256: str = ""  # of what runs (the binary or classes; the script for Python); "" if not ok
    error: str = ""  # the sandbox could not run the compiler (a judge error, not a compile error; never cached)


def artifact_digest(folder: Path, source_name: str, compiled: bool) -> str:
    """sha256 of the files a run uses: a compiled language's source file is left out (``compiled``), so two
    programs that differ only in comments or in edits the compiler erases have the same digest."""
    digest = hashlib.sha256()
    for path in sorted(p for p in folder.rglob("*") if p.is_file()):
        if compiled and path.name == source_name:
            continue
        digest.update(str(path.relative_to(folder)).encode() + b"\0" + path.read_bytes() + b"\0")
    return digest.hexdigest()


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
    isolation: str = ""  # the mode and cgroup hierarchy, "bwrap, cgroup v1+v2" (sandbox.Isolation)
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
            "tests": [{"test": t.test, "verdict": str(t.verdict), "cpu_s": round(t.cpu_s, 3), "detail": t.detail}
                      for t in self.tests],
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


# bump when verdict rules change: cached results are then not reused. 2: CPU time and memory of the whole run
# (control group), a private /dev/shm, the isolation record in the result
RESULT_CACHE_VERSION = "2"


def _outcome_to_json(outcome: TestOutcome) -> dict:
    return {"test": outcome.test, "verdict": outcome.verdict.value, "cpu_s": outcome.cpu_s, "wall_s": outcome.wall_s,
            "detail": outcome.detail, "output_sha256": outcome.output_sha256}


def _outcome_from_json(data: dict, name: str) -> TestOutcome:
    return TestOutcome(name, Verdict(data["verdict"]), data["cpu_s"], data["wall_s"], data["detail"],
                       data["output_sha256"])


def _result_to_json(result: JudgeResult) -> dict:
    return {"verdict": result.verdict.value, "language": result.language, "compile_message": result.compile_message,
            "compile_cached": result.compile_cached, "isolation": result.isolation,
            "isolation_limits": result.isolation_limits, "tests": [_outcome_to_json(t) for t in result.tests]}


def _result_from_json(data: dict, compile_cached: bool) -> JudgeResult:
    tests = [_outcome_from_json(t, t["test"]) for t in data["tests"]]
    return JudgeResult(Verdict(data["verdict"]), data["language"], tests, data["compile_message"],
                       compile_cached=compile_cached, isolation=data["isolation"], from_cache=True,
                       isolation_limits=data.get("isolation_limits", {}))


def _write_atomically(record: Path, data: dict) -> None:
    """Write a cache record; a concurrent writer of the same key writes the same data."""
    record.parent.mkdir(parents=True, exist_ok=True)
    staging = record.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    staging.write_text(json.dumps(data))
    staging.replace(record)


def _outcome_of(result: RunResult, test: TestCase, limits: Limits, float_tolerance: float | None) -> TestOutcome:
    """The verdict of one finished run (see the module docstring for the rules)."""
    cpu, wall = result.cpu_s, result.wall_s
    notes = "; ".join(n for n in (
        f"{result.pids_limit_hits} forks refused at the process limit" if result.pids_limit_hits else "",
        "some of its processes could not be removed" if result.leftover else "") if n)
    suffix = f" ({notes})" if notes else ""
    if result.memory_limit_hit:  # first: the kill came when it happened, and whatever came later followed from it
        peak = f"peak {result.memory_peak_bytes / 2**20:.0f} MiB, " if result.memory_peak_bytes else ""
        return TestOutcome(test.name, Verdict.RE, cpu, wall,
                           f"memory limit exceeded: the run's {limits.cgroup_memory_bytes >> 20} MiB "
                           f"({peak}processes killed: {result.oom_kills}){suffix}")
    if result.wall_killed:
        return TestOutcome(test.name, Verdict.TLE, cpu, wall,
                           f"killed at the wall-clock limit {limits.wall_s}s{suffix}")
    if result.cpu_limit_hit:
        # the kernel counts CPU in ticks: a process stopped at the limit may show a hair under it
        return TestOutcome(test.name, Verdict.TLE, cpu, wall,
                           f"killed at the CPU limit ({cpu:.2f}s used, limit {limits.cpu_s}s){suffix}")
    if cpu > limits.cpu_s:
        return TestOutcome(test.name, Verdict.TLE, cpu, wall, f"CPU {cpu:.2f}s over limit {limits.cpu_s}s{suffix}")
    if result.output_limit_hit:
        return TestOutcome(test.name, Verdict.WA, cpu, wall, f"output limit exceeded{suffix}")
    if result.runner_lost:
        return TestOutcome(test.name, Verdict.RE, cpu, wall,
                           f"the program killed its runner (a kill of its parent or of every process){suffix}")
    if not result.ok:
        how = f"signal {result.signal}" if result.signal else f"exit status {result.exit_code}"
        return TestOutcome(test.name, Verdict.RE, cpu, wall, f"{how}: {result.stderr_text(300).strip()}{suffix}")
    output = result.stdout_path.read_bytes()
    digest = hashlib.sha256(output).hexdigest()
    if tokens_match(output, test.answer_path.read_bytes(), float_tolerance=float_tolerance):
        return TestOutcome(test.name, Verdict.AC, cpu, wall, output_sha256=digest)
    return TestOutcome(test.name, Verdict.WA, cpu, wall, "output differs from the answer", output_sha256=digest)


class ContestJudge:
    """Compiles and runs submissions in the sandbox; see the module docstring for the rules."""

    def __init__(self, cache_dir: Path | str | None = None, *, workers: int | None = None):
        default_cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache")) / "cojudge" / "compile"
        self.cache_dir = Path(cache_dir) if cache_dir else default_cache
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.workers = workers or os.cpu_count() or 1
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()
        self._digests: dict[tuple, str] = {}
        self._file_digests: dict[tuple, str] = {}
        self._pch: str | None = None  # None: not looked for yet; "": unavailable

    # -- compilation -------------------------------------------------------------------------
    def _lock_for(self, key: str) -> threading.Lock:
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())

    def _pch_dir(self) -> Path | None:
        """A folder holding ``bits/stdc++.h.gch`` precompiled with CXX_FLAGS (None where it cannot be built).

        Built once into the cache; the sandbox mounts this process's readable copy of it
        (sandbox.readable_copy).
        """
        with self._lock_for("pch"):
            if self._pch is not None:
                return Path(self._pch) if self._pch else None
            self._pch = ""
            built = self.cache_dir / "pch" / hashlib.sha256(" ".join(CXX_FLAGS).encode()).hexdigest()[:16]
            target = built / "bits" / "stdc++.h.gch"
            if not target.is_file():
                header = _stdcxx_header()
                if header is None:
                    return None
                target.parent.mkdir(parents=True, exist_ok=True)
                staging = target.with_suffix(f".{os.getpid()}.tmp")
                # the system's own header, compiled outside the sandbox: no untrusted input is involved
                done = subprocess.run(["g++", *CXX_FLAGS, "-x", "c++-header", str(header), "-o", str(staging)],
                                      capture_output=True, timeout=300)
                if done.returncode != 0:
                    staging.unlink(missing_ok=True)
                    return None
                staging.replace(target)
            visible = readable_copy("cojudge-pch-", {"bits/stdc++.h.gch": target})
            self._pch = str(visible)
            return visible

    def _compile_target(self, language: str, code: str, memory_mb: int) -> tuple[LanguageSpec, Path | None, str, Path]:
        """(spec, precompiled-header folder, cache key, cache folder) of compiling ``code``."""
        pch = self._pch_dir() if language == "cpp" and isolation_level() == "bwrap" else None
        spec = language_spec(language, code, memory_mb, pch=pch is not None)
        digest = hashlib.sha256(f"{language}\0{spec.key()}\0{code}".encode()).hexdigest()
        return spec, pch, digest, self.cache_dir / digest[:2] / digest

    @staticmethod
    def _cached_compile(target: Path) -> Compiled | None:
        record = target / "result.json"
        if not record.is_file():
            return None
        info = json.loads(record.read_text())
        return Compiled(info["ok"], target / "artifact", info["message"], cached=True,
                        artifact_sha256=info.get("artifact_sha256", ""))

    def _store_compiled(self, target: Path, work: Path, spec: LanguageSpec, ok: bool, message: str) -> Compiled:
        """Put the compiler's folder ``work`` (source and output) into the cache as ``target``, atomically."""
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=self.cache_dir))
        shutil.copytree(work, staging / "artifact")
        # the source is what runs when the run command names it (Python); otherwise the compiler's output
        compiled_away = spec.source_name not in spec.run_argv
        digest_of_artifact = artifact_digest(work, spec.source_name, compiled_away) if ok else ""
        (staging / "result.json").write_text(json.dumps({"ok": ok, "message": message,
                                                         "artifact_sha256": digest_of_artifact}))
        target.parent.mkdir(parents=True, exist_ok=True)
        try:
            staging.rename(target)  # atomic: another process may have won the race
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        info = json.loads((target / "result.json").read_text())
        return Compiled(info["ok"], target / "artifact", info["message"], cached=False,
                        artifact_sha256=info.get("artifact_sha256", ""))

    def compile(self, language: str, code: str, *, memory_mb: int = 256) -> Compiled:
        spec, pch, digest, target = self._compile_target(language, code, memory_mb)
        with self._lock_for(digest):
            cached = self._cached_compile(target)
            if cached is not None:
                return cached
            work = Path(tempfile.mkdtemp(prefix="cojudge-compile-"))
            try:
                os.chmod(work, 0o755)
                (work / spec.source_name).write_text(code, encoding="utf-8")
                if spec.compile_argv is None:
                    ok, message = True, ""
                else:
                    try:
                        result = run_sandboxed(
                            spec.compile_argv, box=work, limits=COMPILE_LIMITS, box_writable=True,
                            extra_ro_binds=runtime_binds(language),
                            ro_mounts=((str(pch), PCH_IN_BOX),) if pch is not None else (),
                            stdout_path=work.parent / f"{work.name}.out",
                            stderr_path=work.parent / f"{work.name}.err",
                        )
                        ok = result.ok
                        message = result.stderr_text(8000)
                    except (SandboxError, OSError) as exc:  # not the program's fault: not cached, tried again
                        return Compiled(False, work, "", cached=False, error=f"compiling: {exc}")
                    finally:
                        for extra in (work.parent / f"{work.name}.out", work.parent / f"{work.name}.err"):
                            extra.unlink(missing_ok=True)
                    if not ok and not message:
                        message = f"compiler ended with status {result.exit_code} signal {result.signal}"
                return self._store_compiled(target, work, spec, ok, message)
            finally:
                shutil.rmtree(work, ignore_errors=True)

    def precompile(self, items: Iterable[tuple[str, str, int]]) -> int:
        """Compile the Java programs among (language, code, memory MB) ``items`` that are not cached yet, in
        batches: one sandboxed JVM per worker runs javac on many programs (native/BatchJavac.java), instead of
        one JVM per program. The cache then holds exactly what :meth:`compile` would have put there (the
        same classes and messages, under the same key), so judging finds every one compiled. A program the
        batch did not finish (a limit, a javac crash) is left to :meth:`compile`. Returns how many compiled here.
        """
        todo: dict[str, tuple[LanguageSpec, Path, str]] = {}
        for language, code, memory_mb in items:
            if language != "java" or _JAVA_PACKAGE.search(code):  # a package's classes go to a subfolder
                continue
            spec, _, digest, target = self._compile_target(language, code, memory_mb)
            if digest not in todo and not (target / "result.json").is_file():
                todo[digest] = (spec, target, code)
        javac = _batch_javac() if len(todo) >= JAVA_BATCH_FROM else None
        if javac is None:
            return 0
        jobs = list(todo.values())
        chunks = [jobs[i::self.workers] for i in range(self.workers) if jobs[i::self.workers]]
        with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
            return sum(pool.map(lambda chunk: self._compile_java_batch(chunk, javac), chunks))

    def _compile_java_batch(self, jobs: list[tuple[LanguageSpec, Path, str]], javac: Path) -> int:
        box = Path(tempfile.mkdtemp(prefix="cojudge-javac-"))
        try:
            os.chmod(box, 0o755)
            (box / "out").mkdir()
            shutil.copytree(javac.parent, box / "tool")
            manifest = []
            for i, (spec, _, code) in enumerate(jobs):
                (box / f"p{i}").mkdir()
                (box / f"p{i}" / spec.source_name).write_text(code, encoding="utf-8")
                manifest.append(f"p{i}\t{spec.source_name}")
            (box / "manifest.txt").write_text("\n".join(manifest) + "\n", encoding="utf-8")
            compile_argv = jobs[0][0].compile_argv
            assert compile_argv is not None and compile_argv[0] == "javac"
            jvm = [a[2:] for a in compile_argv if a.startswith("-J")]
            options = [a for a in compile_argv[1:-1] if not a.startswith("-J")]
            limits = dataclasses.replace(COMPILE_LIMITS, cpu_s=COMPILE_LIMITS.cpu_s + 2 * len(jobs),
                                         wall_s=COMPILE_LIMITS.wall_s + 4 * len(jobs))
            try:
                run_sandboxed(["java", *jvm, "-cp", "tool", "BatchJavac", "manifest.txt", "out",
                               str(JAVA_BATCH_PROGRAM_S), *options],
                              box=box, limits=limits, box_writable=True,
                              stdout_path=box.parent / f"{box.name}.out", stderr_path=box.parent / f"{box.name}.err")
            except SandboxError:  # a batch is only a shortcut: compile() tries each program, and reports
                return 0
            finally:
                for extra in (box.parent / f"{box.name}.out", box.parent / f"{box.name}.err"):
                    extra.unlink(missing_ok=True)
            done = 0
            for i, (spec, target, _) in enumerate(jobs):
                status_file = box / "out" / f"{i}.rc"
                status = status_file.read_text().strip() if status_file.is_file() else ""
                if status not in ("0", "1"):  # not reached, or javac itself failed: compile() decides
                    continue
                # javac names the file as it was given ("p3/Main.java:4: error: ...", "Note: p3/Main.java uses
                # ..."); the javac command, run in the program's folder, names it bare
                text = re.sub(rb"(?m)^(Note: )?" + re.escape(f"p{i}/".encode()) + re.escape(spec.source_name.encode()),
                              rb"\g<1>" + spec.source_name.encode(), (box / "out" / f"{i}.err").read_bytes())
                message = text[:8000].decode("utf-8", "replace")
                if status == "1" and not message:
                    message = "compiler ended with status 1 signal None"
                with self._lock_for(target.name):
                    if not (target / "result.json").is_file():
                        self._store_compiled(target, box / f"p{i}", spec, status == "0", message)
                done += 1
            return done
        finally:
            shutil.rmtree(box, ignore_errors=True)

    # -- running ---------------------------------------------------------------------------
    @staticmethod
    def run_limits(language: str, *, time_limit_s: float, memory_mb: int, answer_bytes: int) -> Limits:
        """The sandbox limits of running a ``language`` program on a test whose answer has ``answer_bytes``."""
        java = language == "java"
        return Limits(
            cpu_s=time_limit_s,
            wall_s=2 * time_limit_s + 1,
            memory_mb=memory_mb if not java else memory_mb + 2048,
            stack_mb=memory_mb if not java else 64,
            address_space=not java,  # the JVM reserves far more than it uses; -Xmx and the run's cgroup bound it
            run_memory_mb=memory_mb + JAVA_RUN_OVERHEAD_MB if java else None,
            output_bytes=max(8 << 20, 4 * answer_bytes),
        )

    def run_test(self, language: str, compiled: Compiled, code: str, test: TestCase, *,
                 time_limit_s: float, memory_mb: int, float_tolerance: float | None = None) -> TestOutcome:
        """One test's outcome; a run the sandbox could not start is JUDGE_ERROR with the reason, never raised."""
        spec = language_spec(language, code, memory_mb)
        run_dir: Path | None = None
        try:
            limits = self.run_limits(language, time_limit_s=time_limit_s, memory_mb=memory_mb,
                                     answer_bytes=test.answer_path.stat().st_size)
            run_dir = Path(tempfile.mkdtemp(prefix="cojudge-run-"))
            box = run_dir / "box"
            shutil.copytree(compiled.artifact_dir, box)
            os.chmod(run_dir, 0o755)
            result = run_sandboxed(
                spec.run_argv, box=box, limits=limits, stdin_path=test.input_path,
                stdout_path=run_dir / "stdout", stderr_path=run_dir / "stderr",
                extra_ro_binds=runtime_binds(language),
            )
            return _outcome_of(result, test, limits, float_tolerance)
        except (SandboxError, OSError) as exc:
            return TestOutcome(test.name, Verdict.JUDGE_ERROR, 0.0, 0.0, f"the sandbox could not run it: {exc}")
        finally:
            if run_dir is not None:
                shutil.rmtree(run_dir, ignore_errors=True)

    # -- judging ---------------------------------------------------------------------------
    def _tests_digest(self, problem: ProblemPackage, tests: list[TestCase]) -> str:
        """sha256 of the tests (names, inputs, answers) and limits a verdict depends on."""
        key = (problem.root, tuple(t.name for t in tests), problem.time_limit_s, problem.memory_mb,
               problem.float_tolerance)
        with self._locks_guard:
            if key in self._digests:
                return self._digests[key]
        digest = hashlib.sha256(repr(key[1:]).encode())
        for test in tests:
            digest.update(test.input_path.read_bytes() + b"\0" + test.answer_path.read_bytes() + b"\0")
        with self._locks_guard:
            self._digests[key] = digest.hexdigest()
        return self._digests[key]

    def judge(self, problem: ProblemPackage, language: str, code: str, *,
              stop_at_first_failure: bool = True, tests: list[TestCase] | None = None) -> JudgeResult:
        """Judge one submission on ``tests`` (default: all of the problem's tests, in judging order).

        Results are cached like compilations, by the hash of (judge version, language, run command,
        what runs, tests and limits, stop rule), "what runs" being the compiled artifact (the code when
        it does not compile): the same program on the same tests is run once, and so is a program whose
        edit the compiler erased (a comment; ``i++`` as ``++i`` where the value is discarded), since its
        binary is the one already run. A timing-borderline verdict is reused as first measured; delete
        ``results/`` under the compile cache to measure again.

        Nothing the submission does raises here: a run the sandbox could not start (or a cache or test file
        that cannot be read) is a ``JUDGE_ERROR`` result with the reason in ``error``, not cached. Only a
        language the judge does not run raises (ValueError), as before any run.
        """
        language = normalize_language(language) if language not in EXTENSIONS else language
        try:
            return self._judge_cached(problem, language, code, stop_at_first_failure=stop_at_first_failure,
                                      tests=list(tests if tests is not None else problem.tests))
        except (SandboxError, OSError, subprocess.SubprocessError, ValueError) as exc:
            return JudgeResult(Verdict.JUDGE_ERROR, language, isolation=str(isolation_record(Limits())),
                               error=f"{type(exc).__name__}: {exc}")

    def _judge_cached(self, problem: ProblemPackage, language: str, code: str, *, stop_at_first_failure: bool,
                      tests: list[TestCase]) -> JudgeResult:
        spec = language_spec(language, code, problem.memory_mb)
        compiled = self.compile(language, code, memory_mb=problem.memory_mb)
        if compiled.error:
            return JudgeResult(Verdict.JUDGE_ERROR, language, isolation=str(isolation_record(COMPILE_LIMITS)),
                               isolation_limits=isolation_record(COMPILE_LIMITS).limits, error=compiled.error)
        runs = compiled.artifact_sha256 if compiled.ok and compiled.artifact_sha256 else f"source:{code}"
        key = hashlib.sha256("\0".join([RESULT_CACHE_VERSION, language, *spec.run_argv, runs,
                                        self._tests_digest(problem, tests), str(stop_at_first_failure)]
                                       ).encode()).hexdigest()
        record = self.cache_dir / "results" / key[:2] / f"{key}.json"
        if record.is_file():
            return _result_from_json(json.loads(record.read_text()), compiled.cached)
        result = self._judge(problem, language, code, compiled, stop_at_first_failure=stop_at_first_failure,
                             tests=tests)
        if not any(t.verdict == Verdict.JUDGE_ERROR for t in result.tests):  # a judge error is tried again
            _write_atomically(record, _result_to_json(result))
        return result

    def _file_digest(self, path: Path) -> str:
        """sha256 of a test file; a big one (a secret test) is hashed once per process."""
        stat = path.stat()
        if stat.st_size < 1 << 16:  # examples sample-exec writes afresh every call: not worth remembering
            return hashlib.sha256(path.read_bytes()).hexdigest()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        with self._locks_guard:
            if key in self._file_digests:
                return self._file_digests[key]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with self._locks_guard:
            self._file_digests[key] = digest
        return digest

    def _run_test_cached(self, language: str, compiled: Compiled, code: str, test: TestCase,
                         problem: ProblemPackage) -> TestOutcome:
        """:meth:`run_test`, cached by (what runs, the test's input and answer, the limits): a program's
        outcome on a test is measured once, whatever the test is called (the statement's examples that
        ``sample-exec`` writes are the package's samples the label audit already ran)."""
        run = functools.partial(self.run_test, language, compiled, code, test, time_limit_s=problem.time_limit_s,
                                memory_mb=problem.memory_mb, float_tolerance=problem.float_tolerance)
        if not compiled.artifact_sha256:
            return run()
        spec = language_spec(language, code, problem.memory_mb)
        key = hashlib.sha256("\0".join([
            RESULT_CACHE_VERSION, "test", language, *spec.run_argv, compiled.artifact_sha256,
            self._file_digest(test.input_path), self._file_digest(test.answer_path),
            repr((problem.time_limit_s, problem.memory_mb, problem.float_tolerance))]).encode()).hexdigest()
        record = self.cache_dir / "tests" / key[:2] / f"{key}.json"
        if record.is_file():
            return _outcome_from_json(json.loads(record.read_text()), test.name)
        outcome = run()
        if outcome.verdict != Verdict.JUDGE_ERROR:
            _write_atomically(record, _outcome_to_json(outcome))
        return outcome

    def _judge(self, problem: ProblemPackage, language: str, code: str, compiled: Compiled, *,
               stop_at_first_failure: bool, tests: list[TestCase]) -> JudgeResult:
        answer_bytes = max((t.answer_path.stat().st_size for t in tests), default=0)
        isolation = isolation_record(self.run_limits(language, time_limit_s=problem.time_limit_s,
                                                     memory_mb=problem.memory_mb, answer_bytes=answer_bytes))
        limits = {**isolation.limits, "output": "RLIMIT_FSIZE max(8 MiB, 4 x the test's answer)"}
        result = JudgeResult(Verdict.AC, language, compile_cached=compiled.cached, isolation=str(isolation),
                             isolation_limits=limits)
        if not compiled.ok:
            result.verdict, result.compile_message = Verdict.CE, compiled.message
            return result
        for test in tests:
            outcome = self._run_test_cached(language, compiled, code, test, problem)
            result.tests.append(outcome)
            if outcome.verdict != Verdict.AC:
                if result.verdict == Verdict.AC:
                    result.verdict = outcome.verdict
                    if outcome.verdict == Verdict.JUDGE_ERROR:
                        result.error = outcome.detail
                if stop_at_first_failure:
                    break
        return result

    def judge_many(self, items: Iterable[tuple[ProblemPackage, str, str]], **kwargs) -> list[JudgeResult]:
        """Judge (problem, language, code) triples on all workers (one sandboxed run per worker at a time)."""
        items = list(items)
        programs = []
        for problem, language, code in items:
            try:
                programs.append((language if language in EXTENSIONS else normalize_language(language), code,
                                 problem.memory_mb))
            except ValueError:
                continue  # judge_one() reports it
        self.precompile(programs)

        def judge_one(item: tuple[ProblemPackage, str, str]) -> JudgeResult:
            try:
                return self.judge(*item, **kwargs)
            except ValueError as exc:  # a language the judge does not run: this item's result, not the batch's
                return JudgeResult(Verdict.JUDGE_ERROR, item[1], error=str(exc))

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(judge_one, items))
