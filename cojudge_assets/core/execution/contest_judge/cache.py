"""The contest judge's caches on disk: compiled programs, judge results and test outcomes.

Owns the cache folder's layout, every key (what a cached thing depends on), the digests those keys are
made of, the record formats and the atomic writes that let processes share the folder:

- ``<root>/<aa>/<key>/``: a compiled program, keyed by (language, compile and run commands, code), holding
  the compiler's folder as ``artifact/`` and ``result.json`` (compiled or not, the message, the digest of
  what runs);
- ``<root>/results/<aa>/<key>.json``: a judge result, keyed by (cache version, isolation, language, run
  command, what runs, tests and limits, stop rule);
- ``<root>/tests/<aa>/<key>.json``: one test's outcome, keyed by (cache version, isolation, language, run
  command, what runs, the test's input and answer, limits).

The isolation is the sandbox's own summary of how runs are isolated on this machine (its mode, the seccomp
filter or not, the cgroup hierarchy: ``ResultCache.isolation``), so a folder filled where runs had no seccomp
filter, or no namespaces, gives nothing to a machine where they have them, and the reverse.

A judge error is never stored, so a re-run tries again. Bump :data:`RESULT_CACHE_VERSION` when a verdict
rule changes: results and outcomes cached before are then not reused.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import tempfile
import threading
from dataclasses import dataclass
from pathlib import Path

from cojudge_assets.core.execution.contest_judge.languages import LanguageSpec
from cojudge_assets.core.execution.contest_judge.verdict import JudgeResult, TestOutcome, Verdict
from cojudge_assets.core.ingest.kattis import ProblemPackage, TestCase

# bump when verdict rules change: cached results are then not reused. 2: CPU time and memory of the whole run
# (control group), a private /dev/shm, the isolation record in the result. 3: the seccomp filter on every run,
# "file size limit exceeded" apart from the output limit, a killed run's CPU time from its control group. 4: no
# RLIMIT_AS where the run's memory cgroup bounds it (threads start; core/execution/sandbox.py). 5: a runner the
# program cannot touch (a verdict cached before may be a forged one: judged again), under bubblewrap a kill of the
# runner fails (the program's own verdict, not RE), RLIMIT_CPU a backstop above the CPU limit
RESULT_CACHE_VERSION = "5"


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


def write_atomically(record: Path, data: dict) -> None:
    """Write a cache record; a concurrent writer of the same key writes the same data."""
    record.parent.mkdir(parents=True, exist_ok=True)
    staging = record.with_suffix(f".{os.getpid()}.{threading.get_ident()}.tmp")
    staging.write_text(json.dumps(data))
    staging.replace(record)


class CompileCache:
    """Compiled programs, one folder each; a folder appears whole (renamed into place) or not at all."""

    def __init__(self, root: Path):
        self.root = root
        self.root.mkdir(parents=True, exist_ok=True)  # entries are staged in it, then renamed into place
        self._locks: dict[str, threading.Lock] = {}
        self._locks_guard = threading.Lock()

    def lock(self, key: str) -> threading.Lock:
        """The lock of one entry in this process (two threads compiling the same program compile it once)."""
        with self._locks_guard:
            return self._locks.setdefault(key, threading.Lock())

    def entry(self, language: str, spec: LanguageSpec, code: str) -> tuple[str, Path]:
        """(key, folder) of compiling ``code`` in ``language`` with ``spec``'s commands."""
        digest = hashlib.sha256(f"{language}\0{spec.key()}\0{code}".encode()).hexdigest()
        return digest, self.root / digest[:2] / digest

    @staticmethod
    def holds(entry: Path) -> bool:
        return (entry / "result.json").is_file()

    @staticmethod
    def load(entry: Path) -> Compiled | None:
        """The cached compilation in ``entry``, or None if there is none yet."""
        record = entry / "result.json"
        if not record.is_file():
            return None
        info = json.loads(record.read_text())
        return Compiled(
            info["ok"],
            entry / "artifact",
            info["message"],
            cached=True,
            artifact_sha256=info.get("artifact_sha256", ""),
        )

    def store(self, entry: Path, work: Path, spec: LanguageSpec, ok: bool, message: str) -> Compiled:
        """Put the compiler's folder ``work`` (source and output) into the cache as ``entry``, atomically."""
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=self.root))
        shutil.copytree(work, staging / "artifact")
        # the source is what runs when the run command names it (Python); otherwise the compiler's output
        compiled_away = spec.source_name not in spec.run_argv
        digest_of_artifact = artifact_digest(work, spec.source_name, compiled_away) if ok else ""
        (staging / "result.json").write_text(
            json.dumps({"ok": ok, "message": message, "artifact_sha256": digest_of_artifact})
        )
        entry.parent.mkdir(parents=True, exist_ok=True)
        try:
            staging.rename(entry)  # atomic: another process may have won the race
        except OSError:
            shutil.rmtree(staging, ignore_errors=True)
        info = json.loads((entry / "result.json").read_text())
        return Compiled(
            info["ok"],
            entry / "artifact",
            info["message"],
            cached=False,
            artifact_sha256=info.get("artifact_sha256", ""),
        )


def _outcome_to_json(outcome: TestOutcome) -> dict:
    return {
        "test": outcome.test,
        "verdict": outcome.verdict.value,
        "cpu_s": outcome.cpu_s,
        "wall_s": outcome.wall_s,
        "detail": outcome.detail,
        "output_sha256": outcome.output_sha256,
    }


def _outcome_from_json(data: dict, name: str) -> TestOutcome:
    return TestOutcome(
        name, Verdict(data["verdict"]), data["cpu_s"], data["wall_s"], data["detail"], data["output_sha256"]
    )


def _result_to_json(result: JudgeResult) -> dict:
    return {
        "verdict": result.verdict.value,
        "language": result.language,
        "compile_message": result.compile_message,
        "compile_cached": result.compile_cached,
        "isolation": result.isolation,
        "isolation_limits": result.isolation_limits,
        "tests": [_outcome_to_json(t) for t in result.tests],
    }


def _result_from_json(data: dict, compile_cached: bool) -> JudgeResult:
    tests = [_outcome_from_json(t, t["test"]) for t in data["tests"]]
    return JudgeResult(
        Verdict(data["verdict"]),
        data["language"],
        tests,
        data["compile_message"],
        compile_cached=compile_cached,
        isolation=data["isolation"],
        from_cache=True,
        isolation_limits=data.get("isolation_limits", {}),
    )


class ResultCache:
    """Judge results and test outcomes, one JSON record each; test files are hashed once per process."""

    def __init__(self, root: Path, isolation: str | None = None):
        self.root = root
        self._guard = threading.Lock()
        self._tests_digests: dict[tuple, str] = {}
        self._file_digests: dict[tuple, str] = {}
        self._isolation = isolation

    @property
    def isolation(self) -> str:
        """The isolation runs get on this machine (mode, seccomp filter or not, cgroup hierarchy): part of every
        key, so a result judged with weaker isolation (no seccomp filter, no namespaces, a cache folder shared
        with another machine) is never reused where runs are isolated otherwise, nor the reverse."""
        if self._isolation is None:
            from cojudge_assets.core.execution.sandbox import Limits, isolation_record

            self._isolation = str(isolation_record(Limits()))
        return self._isolation

    # -- digests ------------------------------------------------------------------------------
    def tests_digest(self, problem: ProblemPackage, tests: list[TestCase]) -> str:
        """sha256 of the tests (names, inputs, answers) and limits a verdict depends on."""
        key = (
            problem.root,
            tuple(t.name for t in tests),
            problem.time_limit_s,
            problem.memory_mb,
            problem.float_tolerance,
        )
        with self._guard:
            if key in self._tests_digests:
                return self._tests_digests[key]
        digest = hashlib.sha256(repr(key[1:]).encode())
        for test in tests:
            digest.update(test.input_path.read_bytes() + b"\0" + test.answer_path.read_bytes() + b"\0")
        with self._guard:
            self._tests_digests[key] = digest.hexdigest()
        return self._tests_digests[key]

    def file_digest(self, path: Path) -> str:
        """sha256 of a test file; a big one (a secret test) is hashed once per process."""
        stat = path.stat()
        if stat.st_size < 1 << 16:  # examples sample-exec writes afresh every call: not worth remembering
            return hashlib.sha256(path.read_bytes()).hexdigest()
        key = (str(path), stat.st_size, stat.st_mtime_ns)
        with self._guard:
            if key in self._file_digests:
                return self._file_digests[key]
        digest = hashlib.sha256(path.read_bytes()).hexdigest()
        with self._guard:
            self._file_digests[key] = digest
        return digest

    # -- judge results ------------------------------------------------------------------------
    def result_key(
        self,
        language: str,
        run_argv: list[str],
        runs: str,
        problem: ProblemPackage,
        tests: list[TestCase],
        stop_at_first_failure: bool,
    ) -> str:
        """The key of judging what ``runs`` (an artifact digest, or ``source:<code>``) on ``tests``."""
        return hashlib.sha256(
            "\0".join(
                [
                    RESULT_CACHE_VERSION,
                    self.isolation,
                    language,
                    *run_argv,
                    runs,
                    self.tests_digest(problem, tests),
                    str(stop_at_first_failure),
                ]
            ).encode()
        ).hexdigest()

    def load_result(self, key: str, compile_cached: bool) -> JudgeResult | None:
        record = self.root / "results" / key[:2] / f"{key}.json"
        if not record.is_file():
            return None
        return _result_from_json(json.loads(record.read_text()), compile_cached)

    def store_result(self, key: str, result: JudgeResult) -> None:
        """Store ``result`` unless a test of it is a judge error (that one is tried again)."""
        if not any(t.verdict == Verdict.JUDGE_ERROR for t in result.tests):
            write_atomically(self.root / "results" / key[:2] / f"{key}.json", _result_to_json(result))

    # -- test outcomes ------------------------------------------------------------------------
    def outcome_key(
        self, language: str, run_argv: list[str], artifact_sha256: str, test: TestCase, problem: ProblemPackage
    ) -> str:
        """The key of running the artifact on one test: its input and answer, not its name, and the limits."""
        return hashlib.sha256(
            "\0".join(
                [
                    RESULT_CACHE_VERSION,
                    self.isolation,
                    "test",
                    language,
                    *run_argv,
                    artifact_sha256,
                    self.file_digest(test.input_path),
                    self.file_digest(test.answer_path),
                    repr((problem.time_limit_s, problem.memory_mb, problem.float_tolerance)),
                ]
            ).encode()
        ).hexdigest()

    def load_outcome(self, key: str, name: str) -> TestOutcome | None:
        """The cached outcome under ``key``, named ``name`` (the test that asks), or None."""
        record = self.root / "tests" / key[:2] / f"{key}.json"
        if not record.is_file():
            return None
        return _outcome_from_json(json.loads(record.read_text()), name)

    def store_outcome(self, key: str, outcome: TestOutcome) -> None:
        """Store ``outcome`` unless it is a judge error (that one is tried again)."""
        if outcome.verdict != Verdict.JUDGE_ERROR:
            write_atomically(self.root / "tests" / key[:2] / f"{key}.json", _outcome_to_json(outcome))
