"""The contest judge's front: :class:`ContestJudge` judges submissions on a problem's tests.

Owns the judging loop (tests in judging order, stopping at the first that is not AC), running one test in
the sandbox, the worker pool of :meth:`ContestJudge.judge_many`, and turning every failure of the judge
itself into a ``JUDGE_ERROR`` result. Compiling (:mod:`.compiler`, :mod:`.java_batch`), caching
(:mod:`.cache`) and the verdict rules (:mod:`.verdict`) are delegated; the rules are stated in
:mod:`cojudge_assets.core.execution.contest_judge`.
"""

from __future__ import annotations

import errno
import functools
import os
import shutil
import stat
import subprocess
import tempfile
import threading
from collections.abc import Callable, Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cojudge_assets.core.execution.contest_judge.cache import CompileCache, Compiled, ResultCache
from cojudge_assets.core.execution.contest_judge.compiler import Compiler, PrecompiledHeader
from cojudge_assets.core.execution.contest_judge.java_batch import precompile_java
from cojudge_assets.core.execution.contest_judge.languages import (
    COMPILE_LIMITS,
    EXTENSIONS,
    language_spec,
    normalize_language,
    run_limits,
    runtime_binds,
)
from cojudge_assets.core.execution.contest_judge.python_batch import precompile_python
from cojudge_assets.core.execution.contest_judge.verdict import JudgeResult, TestOutcome, Verdict, outcome_of
from cojudge_assets.core.execution.sandbox import Limits, SandboxError, isolation_record, readable_copy, run_sandboxed
from cojudge_assets.core.ingest.kattis import ProblemPackage, TestCase

_staged: dict[Path, Path] = {}  # a cached file -> this process's copy of it beside the run folders
_staged_lock = threading.Lock()


def _linkable(path: Path) -> bool:
    """A cached file a run may share: this process's own, and writable by nobody else (a run's uid cannot
    change it, nor its mode; the box is read-only under bubblewrap anyway)."""
    info = path.stat()
    return info.st_uid == os.geteuid() and not info.st_mode & 0o022 and stat.S_ISREG(info.st_mode)


def _staged_copy(source: Path) -> Path:
    """This process's one copy of ``source`` where the run folders are (the cache is on another filesystem)."""
    with _staged_lock:
        if source not in _staged:
            staged = readable_copy("cojudge-artifact-", {source.name: source}) / source.name
            staged.chmod(staged.stat().st_mode & ~0o022)
            _staged[source] = staged
        return _staged[source]


def link_box(artifact: Path, box: Path) -> None:
    """``box``: the compiled ``artifact`` folder for one test run, its files hard links to the cached ones.

    A 220 MiB static binary is then not copied for every test: each run's box holds another name of the same
    inode (read-only in the run: the box is mounted read-only and the file is this process's, writable by no
    one else). Where the cache is on another filesystem than the run folders, each file is copied once per
    process beside them and linked from there; a file a run could change (another owner, group- or
    world-writable) is copied for each run, as before.
    """
    box.mkdir(mode=0o755)
    for folder, subfolders, files in os.walk(artifact):
        relative = Path(folder).relative_to(artifact)
        for name in subfolders:
            (box / relative / name).mkdir(mode=0o755)
        for name in files:
            source, target = Path(folder) / name, box / relative / name
            if not _linkable(source):
                shutil.copy2(source, target)
                continue
            try:
                os.link(source, target)
            except OSError as exc:
                if exc.errno != errno.EXDEV:
                    raise
                os.link(_staged_copy(source), target)


class ContestJudge:
    """Compiles and runs submissions in the sandbox; see
    :mod:`cojudge_assets.core.execution.contest_judge` for the rules."""

    def __init__(self, cache_dir: Path | str, *, build_dir: Path | str | None = None, workers: int | None = None):
        """``cache_dir``: the compile and result cache (the Dagster resource passes ``<cache>/compile``, the cache
        folder settings.py resolves); ``build_dir``: where the sandbox's own helpers (the runner, the batch javac)
        are built, ``runner/`` and ``javac/`` in it (``cache_dir`` when not given). Nothing here reads the
        environment: every file the judge keeps is under these two folders."""
        self.cache_dir = Path(cache_dir)
        self.cache_dir.mkdir(parents=True, exist_ok=True)
        self.build_dir = Path(build_dir) if build_dir else self.cache_dir
        self.workers = workers or os.cpu_count() or 1
        self._compiler = Compiler(CompileCache(self.cache_dir), PrecompiledHeader(self.cache_dir), self.build_dir)
        self._results = ResultCache(self.cache_dir)

    # -- compilation --------------------------------------------------------------------------
    def compile(self, language: str, code: str, *, memory_mb: int = 256) -> Compiled:
        """``code`` compiled in the sandbox, or read from the compile cache when it was compiled before."""
        return self._compiler.compile(language, code, memory_mb=memory_mb)

    def precompile(self, items: Iterable[tuple[str, str, int]]) -> int:
        """Compile the Java and Python programs among (language, code, memory MB) ``items`` that are not cached
        yet, in batches: one sandboxed JVM per worker runs javac on many programs (native/BatchJavac.java), and
        one sandboxed interpreter per worker syntax-checks many Python programs (native/batch_pycheck.py),
        instead of one JVM or interpreter per program. The cache then holds exactly what :meth:`compile` would
        have put there (the same classes and messages, under the same key), so judging finds every one
        compiled. A program a batch did not finish (a limit, a compiler crash) is left to :meth:`compile`.
        Returns how many compiled here.
        """
        items = list(items)
        return precompile_java(self._compiler, items, workers=self.workers) + precompile_python(
            self._compiler, items, workers=self.workers
        )

    def _pch_dir(self) -> Path | None:
        """The precompiled C++ header's folder (None where it cannot be built)."""
        return self._compiler.pch.folder()

    # -- running ------------------------------------------------------------------------------
    run_limits = staticmethod(run_limits)

    def run_test(
        self,
        language: str,
        compiled: Compiled,
        code: str,
        test: TestCase,
        *,
        time_limit_s: float,
        memory_mb: int,
        float_tolerance: float | None = None,
    ) -> TestOutcome:
        """One test's outcome; a run the sandbox could not start is JUDGE_ERROR with the reason, never raised."""
        spec = language_spec(language, code, memory_mb)
        run_dir: Path | None = None
        try:
            limits = self.run_limits(
                language, time_limit_s=time_limit_s, memory_mb=memory_mb, answer_bytes=test.answer_path.stat().st_size
            )
            run_dir = Path(tempfile.mkdtemp(prefix="cojudge-run-"))
            box = run_dir / "box"
            link_box(compiled.artifact_dir, box)
            os.chmod(run_dir, 0o755)
            result = run_sandboxed(
                spec.run_argv,
                box=box,
                limits=limits,
                stdin_path=test.input_path,
                stdout_path=run_dir / "stdout",
                stderr_path=run_dir / "stderr",
                extra_ro_binds=runtime_binds(language),
                build_dir=self.build_dir,
            )
            return outcome_of(result, test, limits, float_tolerance)
        except (SandboxError, OSError) as exc:
            return TestOutcome(test.name, Verdict.JUDGE_ERROR, 0.0, 0.0, f"the sandbox could not run it: {exc}")
        finally:
            if run_dir is not None:
                shutil.rmtree(run_dir, ignore_errors=True)

    # -- judging ------------------------------------------------------------------------------
    def judge(
        self,
        problem: ProblemPackage,
        language: str,
        code: str,
        *,
        stop_at_first_failure: bool = True,
        tests: list[TestCase] | None = None,
    ) -> JudgeResult:
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
            return self._judge_cached(
                problem,
                language,
                code,
                stop_at_first_failure=stop_at_first_failure,
                tests=list(tests if tests is not None else problem.tests),
            )
        except (SandboxError, OSError, subprocess.SubprocessError, ValueError) as exc:
            return JudgeResult(
                Verdict.JUDGE_ERROR,
                language,
                isolation=str(isolation_record(Limits())),
                error=f"{type(exc).__name__}: {exc}",
            )

    def _judge_cached(
        self, problem: ProblemPackage, language: str, code: str, *, stop_at_first_failure: bool, tests: list[TestCase]
    ) -> JudgeResult:
        spec = language_spec(language, code, problem.memory_mb)
        compiled = self.compile(language, code, memory_mb=problem.memory_mb)
        if compiled.error:
            return JudgeResult(
                Verdict.JUDGE_ERROR,
                language,
                isolation=str(isolation_record(COMPILE_LIMITS)),
                isolation_limits=isolation_record(COMPILE_LIMITS).limits,
                error=compiled.error,
            )
        runs = compiled.artifact_sha256 if compiled.ok and compiled.artifact_sha256 else f"source:{code}"
        key = self._results.result_key(language, spec.run_argv, runs, problem, tests, stop_at_first_failure)
        cached = self._results.load_result(key, compiled.cached)
        if cached is not None:
            return cached
        result = self._run_tests(
            problem, language, code, compiled, stop_at_first_failure=stop_at_first_failure, tests=tests
        )
        self._results.store_result(key, result)  # not if a test is a judge error: that is tried again
        return result

    def _run_test_cached(
        self, language: str, compiled: Compiled, code: str, test: TestCase, problem: ProblemPackage
    ) -> TestOutcome:
        """:meth:`run_test`, cached by (what runs, the test's input and answer, the limits): a program's
        outcome on a test is measured once, whatever the test is called (the statement's examples that
        ``sample-exec`` writes are the package's samples the label audit already ran)."""
        run = functools.partial(
            self.run_test,
            language,
            compiled,
            code,
            test,
            time_limit_s=problem.time_limit_s,
            memory_mb=problem.memory_mb,
            float_tolerance=problem.float_tolerance,
        )
        if not compiled.artifact_sha256:
            return run()
        spec = language_spec(language, code, problem.memory_mb)
        key = self._results.outcome_key(language, spec.run_argv, compiled.artifact_sha256, test, problem)
        cached = self._results.load_outcome(key, test.name)
        if cached is not None:
            return cached
        outcome = run()
        self._results.store_outcome(key, outcome)  # not a judge error: that is tried again
        return outcome

    def _run_tests(
        self,
        problem: ProblemPackage,
        language: str,
        code: str,
        compiled: Compiled,
        *,
        stop_at_first_failure: bool,
        tests: list[TestCase],
    ) -> JudgeResult:
        answer_bytes = max((t.answer_path.stat().st_size for t in tests), default=0)
        isolation = isolation_record(
            self.run_limits(
                language, time_limit_s=problem.time_limit_s, memory_mb=problem.memory_mb, answer_bytes=answer_bytes
            )
        )
        limits = {**isolation.limits, "output": "RLIMIT_FSIZE max(8 MiB, 4 x the test's answer)"}
        result = JudgeResult(
            Verdict.AC, language, compile_cached=compiled.cached, isolation=str(isolation), isolation_limits=limits
        )
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

    def judge_many(
        self, items: Iterable[tuple[ProblemPackage, str, str]], *, on_done: Callable[[], object] | None = None, **kwargs
    ) -> list[JudgeResult]:
        """Judge (problem, language, code) triples on all workers (one sandboxed run per worker at a time);
        ``on_done`` is called after each (core/progress.py ``Progress.advance``)."""
        items = list(items)
        programs = []
        for problem, language, code in items:
            try:
                programs.append(
                    (language if language in EXTENSIONS else normalize_language(language), code, problem.memory_mb)
                )
            except ValueError:
                continue  # judge_one() reports it
        self.precompile(programs)

        def judge_one(item: tuple[ProblemPackage, str, str]) -> JudgeResult:
            try:
                return self.judge(*item, **kwargs)
            except ValueError as exc:  # a language the judge does not run: this item's result, not the batch's
                return JudgeResult(Verdict.JUDGE_ERROR, item[1], error=str(exc))
            finally:
                if on_done is not None:
                    on_done()

        with ThreadPoolExecutor(max_workers=self.workers) as pool:
            return list(pool.map(judge_one, items))
