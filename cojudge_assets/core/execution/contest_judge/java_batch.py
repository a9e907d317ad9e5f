"""Compiling many Java programs with one JVM per worker, to fill the compile cache as javac would.

Owns the batch compiler: :func:`precompile_java` runs ``native/BatchJavac.java`` (javac's API on many
programs, in one sandboxed JVM) and stores each program under the very cache key, with the very classes
and messages, that :meth:`Compiler.compile` (one javac command per program) would store. A batch is only a
shortcut: a program it did not finish is left to :meth:`Compiler.compile`.
"""

from __future__ import annotations

import dataclasses
import functools
import hashlib
import re
import shutil
import subprocess
import tempfile
from collections.abc import Iterable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

from cojudge_assets.core.execution.contest_judge.compiler import Compiler, lay_out_batch
from cojudge_assets.core.execution.contest_judge.languages import COMPILE_LIMITS, LanguageSpec
from cojudge_assets.core.execution.sandbox import SandboxError, run_sandboxed

JAVA_BATCH_FROM = 4  # fewer new Java programs than this are compiled one JVM each (a batch's JVM costs one)
JAVA_BATCH_PROGRAM_S = 60.0  # a program javac spends longer on (wall clock) ends its batch; compile() redoes it
_JAVA_PACKAGE = re.compile(r"^\s*package\s+[\w.]+\s*;", re.MULTILINE)
BATCH_JAVAC_SOURCE = Path(__file__).parent.parent / "native" / "BatchJavac.java"


@functools.cache
def _batch_javac(build_dir: Path) -> Path | None:
    """``BatchJavac.class`` (native/BatchJavac.java) built once per source version under ``build_dir/javac/``
    (the judge's build folder, handed down from the Dagster resource), or None without a JDK.

    Our own source, compiled outside the sandbox like the runner; the programs it compiles never leave it.
    """
    if shutil.which("javac") is None:
        return None
    digest = hashlib.sha256(BATCH_JAVAC_SOURCE.read_bytes()).hexdigest()[:16]
    base = build_dir / "javac"
    built = base / digest / "BatchJavac.class"
    if not built.is_file():
        base.mkdir(parents=True, exist_ok=True)
        staging = Path(tempfile.mkdtemp(prefix=".staging-", dir=base))
        done = subprocess.run(
            ["javac", "-d", str(staging), str(BATCH_JAVAC_SOURCE)], capture_output=True, check=False, timeout=300
        )
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


def precompile_java(compiler: Compiler, items: Iterable[tuple[str, str, int]], *, workers: int) -> int:
    """Compile the Java programs among (language, code, memory MB) ``items`` that are not cached yet, in
    batches of one sandboxed JVM per worker. Returns how many compiled here (0 below JAVA_BATCH_FROM new
    programs or without a JDK)."""
    todo: dict[str, tuple[LanguageSpec, Path, str]] = {}
    for language, code, memory_mb in items:
        if language != "java" or _JAVA_PACKAGE.search(code):  # a package's classes go to a subfolder
            continue
        spec, _, digest, target = compiler.target(language, code, memory_mb)
        if digest not in todo and not compiler.cache.holds(target):
            todo[digest] = (spec, target, code)
    javac = _batch_javac(compiler.build_dir) if len(todo) >= JAVA_BATCH_FROM else None
    if javac is None:
        return 0
    jobs = list(todo.values())
    chunks = [jobs[i::workers] for i in range(workers) if jobs[i::workers]]
    with ThreadPoolExecutor(max_workers=len(chunks)) as pool:
        return sum(pool.map(lambda chunk: _compile_batch(compiler, chunk, javac), chunks))


def _compile_batch(compiler: Compiler, jobs: list[tuple[LanguageSpec, Path, str]], javac: Path) -> int:
    """One sandboxed JVM compiling ``jobs`` (spec, cache folder, code); returns how many it stored."""
    box = Path(tempfile.mkdtemp(prefix="cojudge-javac-"))
    try:
        lay_out_batch(box, jobs)
        shutil.copytree(javac.parent, box / "tool")
        compile_argv = jobs[0][0].compile_argv
        assert compile_argv is not None and compile_argv[0] == "javac"
        jvm = [a[2:] for a in compile_argv if a.startswith("-J")]
        options = [a for a in compile_argv[1:-1] if not a.startswith("-J")]
        limits = dataclasses.replace(
            COMPILE_LIMITS, cpu_s=COMPILE_LIMITS.cpu_s + 2 * len(jobs), wall_s=COMPILE_LIMITS.wall_s + 4 * len(jobs)
        )
        try:
            run_sandboxed(
                ["java", *jvm, "-cp", "tool", "BatchJavac", "manifest.txt", "out", str(JAVA_BATCH_PROGRAM_S), *options],
                box=box,
                limits=limits,
                box_writable=True,
                build_dir=compiler.build_dir,
                stdout_path=box.parent / f"{box.name}.out",
                stderr_path=box.parent / f"{box.name}.err",
            )
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
            text = re.sub(
                rb"(?m)^(Note: )?" + re.escape(f"p{i}/".encode()) + re.escape(spec.source_name.encode()),
                rb"\g<1>" + spec.source_name.encode(),
                (box / "out" / f"{i}.err").read_bytes(),
            )
            message = text[:8000].decode("utf-8", "replace")
            if status == "1" and not message:
                message = "compiler ended with status 1 signal None"
            with compiler.cache.lock(target.name):
                if not compiler.cache.holds(target):
                    compiler.cache.store(target, box / f"p{i}", spec, status == "0", message)
            done += 1
        return done
    finally:
        shutil.rmtree(box, ignore_errors=True)
