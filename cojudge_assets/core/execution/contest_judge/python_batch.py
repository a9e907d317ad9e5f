"""Syntax-checking many Python programs with one interpreter per worker, to fill the compile cache as the
single check would.

Owns the batch check: :func:`precompile_python` runs ``native/batch_pycheck.py`` (the single check's own
code on many programs, in one sandboxed interpreter) and stores each program under the very cache key, with
the very message, that :meth:`Compiler.compile` (one ``python -c CHECK`` per program) would store. A batch
is only a shortcut: a program it did not finish, or whose check raised what depends on the process rather
than on the source (MemoryError, RecursionError), is left to :meth:`Compiler.compile`; a program that
crashes the batch's interpreter ends its batch, and a new batch goes on after it.
"""

from __future__ import annotations

import dataclasses
import shutil
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cojudge_assets.core.execution.contest_judge.compiler import Compiler, lay_out_batch
from cojudge_assets.core.execution.contest_judge.languages import COMPILE_LIMITS, LanguageSpec, runtime_binds
from cojudge_assets.core.execution.sandbox import SandboxError, run_sandboxed

PYTHON_BATCH_FROM = 2  # fewer new Python programs than this are checked one interpreter each
# a program the check spends longer on (wall clock) ends its batch; compile() redoes it under its own limits.
# Below the single check's CPU limit, so a program the batch finishes would finish alone too
PYTHON_BATCH_PROGRAM_S = 20.0
PYTHON_BATCH_RESTARTS = 3  # batches started again after a program that ended one (then compile() does the rest)
BATCH_PYCHECK_SOURCE = Path(__file__).parent.parent / "native" / "batch_pycheck.py"


def precompile_python(compiler: Compiler, items: Iterable[tuple[str, str, int]], *, workers: int) -> int:
    """Syntax-check the Python programs among (language, code, memory MB) ``items`` that are not cached yet,
    in batches of one sandboxed interpreter per worker. Returns how many were stored here (0 below
    PYTHON_BATCH_FROM new programs)."""
    todo: dict[str, tuple[LanguageSpec, Path, str]] = {}
    for language, code, memory_mb in items:
        if language != "python":
            continue
        spec, _, digest, target = compiler.target(language, code, memory_mb)
        if digest not in todo and not compiler.cache.holds(target):
            todo[digest] = (spec, target, code)
    if len(todo) < PYTHON_BATCH_FROM:
        return 0
    jobs = list(todo.values())
    chunks = [jobs[i::workers] for i in range(workers) if jobs[i::workers]]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        return sum(pool.map(lambda chunk: _check_chunk(compiler, chunk), chunks))


def _check_chunk(compiler: Compiler, jobs: list[tuple[LanguageSpec, Path, str]]) -> int:
    """Check ``jobs`` in one batch; when a program ends it early, go on after that program in a new one."""
    done = 0
    for _ in range(1 + PYTHON_BATCH_RESTARTS):
        stored, reached = _check_batch(compiler, jobs)
        done += stored
        if reached < 0:  # the sandbox could not start it: compile() checks each program, and reports
            break
        jobs = jobs[reached + 1 :]  # the program after those reached ended the batch: compile() checks it alone
        if not jobs:
            break
    return done


def _check_batch(compiler: Compiler, jobs: list[tuple[LanguageSpec, Path, str]]) -> tuple[int, int]:
    """One sandboxed interpreter checking ``jobs`` (spec, cache folder, code): (how many it stored, how many
    it reached: a program after those did not get a status), or (0, -1) if the sandbox could not run it."""
    box = Path(tempfile.mkdtemp(prefix="cojudge-pycheck-"))
    try:
        lay_out_batch(box, jobs)
        (box / "tool").mkdir()
        shutil.copyfile(BATCH_PYCHECK_SOURCE, box / "tool" / BATCH_PYCHECK_SOURCE.name)
        compile_argv = jobs[0][0].compile_argv
        assert compile_argv is not None and compile_argv[-2] == "-c"
        interpreter, flags, check = compile_argv[0], compile_argv[1:-2], compile_argv[-1]
        limits = dataclasses.replace(
            COMPILE_LIMITS, cpu_s=COMPILE_LIMITS.cpu_s + len(jobs), wall_s=COMPILE_LIMITS.wall_s + 2 * len(jobs)
        )
        try:
            run_sandboxed(
                [
                    interpreter,
                    *flags,
                    f"tool/{BATCH_PYCHECK_SOURCE.name}",
                    "manifest.txt",
                    "out",
                    str(PYTHON_BATCH_PROGRAM_S),
                    check,
                ],
                box=box,
                limits=limits,
                box_writable=True,
                extra_ro_binds=runtime_binds("python"),
                build_dir=compiler.build_dir,
                stdout_path=box.parent / f"{box.name}.out",
                stderr_path=box.parent / f"{box.name}.err",
            )
        except SandboxError:
            return 0, -1
        finally:
            for extra in (box.parent / f"{box.name}.out", box.parent / f"{box.name}.err"):
                extra.unlink(missing_ok=True)
        stored = reached = 0
        for i, (spec, target, _) in enumerate(jobs):
            status_file = box / "out" / f"{i}.rc"
            status = status_file.read_text().strip() if status_file.is_file() else ""
            if status == "":  # not reached: the batch ended here
                break
            reached = i + 1
            if status not in ("0", "1"):  # a MemoryError or RecursionError of this process: compile() decides
                continue
            # the single check's message: the first 8000 bytes of its stderr (RunResult.stderr_text(8000))
            message = (box / "out" / f"{i}.err").read_bytes()[:8000].decode("utf-8", "replace")
            if status == "1" and not message:
                message = "compiler ended with status 1 signal None"
            with compiler.cache.lock(target.name):
                if not compiler.cache.holds(target):
                    compiler.cache.store(target, box / f"p{i}", spec, status == "0", message)
            stored += 1
        return stored, reached
    finally:
        shutil.rmtree(box, ignore_errors=True)
