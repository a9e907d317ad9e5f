"""Compiling one program in the sandbox, once: the compile command against the compile cache, and the
precompiled C++ header.

Owns :class:`Compiler` (the same code is compiled once, also across processes; a compiler the sandbox
could not start is a judge error, not cached) and :class:`PrecompiledHeader` (``bits/stdc++.h`` built
once with the contest flags and mounted read-only in the box).
"""

from __future__ import annotations

import hashlib
import os
import shutil
import subprocess
import tempfile
import threading
from pathlib import Path

from cojudge_assets.core.execution.contest_judge.cache import CompileCache, Compiled
from cojudge_assets.core.execution.contest_judge.languages import (
    COMPILE_LIMITS,
    CXX_FLAGS,
    PCH_IN_BOX,
    LanguageSpec,
    language_spec,
    runtime_binds,
)
from cojudge_assets.core.execution.sandbox import SandboxError, isolation_level, readable_copy, run_sandboxed


def lay_out_batch(box: Path, jobs: list[tuple[LanguageSpec, Path, str]]) -> None:
    """The folders a batch compiler reads in ``box``: each program of ``jobs`` (spec, cache folder, code) as
    ``p<i>/<source name>``, ``manifest.txt`` listing them (``p<i>`` TAB source name, in order), and an empty ``out/``
    for the results. ``box`` must be readable by the sandbox's user."""
    os.chmod(box, 0o755)
    (box / "out").mkdir()
    manifest = []
    for i, (spec, _, code) in enumerate(jobs):
        (box / f"p{i}").mkdir()
        (box / f"p{i}" / spec.source_name).write_text(code, encoding="utf-8")
        manifest.append(f"p{i}\t{spec.source_name}")
    (box / "manifest.txt").write_text("\n".join(manifest) + "\n", encoding="utf-8")


def _stdcxx_header() -> Path | None:
    """The system's ``bits/stdc++.h`` (as g++ finds it), or None."""
    done = subprocess.run(
        ["g++", *CXX_FLAGS, "-H", "-fsyntax-only", "-x", "c++", "-"],
        input=b"#include <bits/stdc++.h>\n",
        capture_output=True,
        timeout=120,
    )
    for line in done.stderr.decode(errors="replace").splitlines():
        if line.startswith(". ") and line.endswith("bits/stdc++.h"):
            return Path(line[2:].strip())
    return None


class PrecompiledHeader:
    """``bits/stdc++.h.gch`` precompiled with CXX_FLAGS under ``<cache>/pch/``, looked for once per process."""

    def __init__(self, cache_dir: Path):
        self.cache_dir = cache_dir
        self._lock = threading.Lock()
        self._folder: str | None = None  # None: not looked for yet; "": unavailable

    def folder(self) -> Path | None:
        """A folder holding ``bits/stdc++.h.gch`` precompiled with CXX_FLAGS (None where it cannot be built).

        Built once into the cache; the sandbox mounts this process's readable copy of it
        (sandbox.readable_copy).
        """
        with self._lock:
            if self._folder is not None:
                return Path(self._folder) if self._folder else None
            self._folder = ""
            built = self.cache_dir / "pch" / hashlib.sha256(" ".join(CXX_FLAGS).encode()).hexdigest()[:16]
            target = built / "bits" / "stdc++.h.gch"
            if not target.is_file():
                header = _stdcxx_header()
                if header is None:
                    return None
                target.parent.mkdir(parents=True, exist_ok=True)
                staging = target.with_suffix(f".{os.getpid()}.tmp")
                # the system's own header, compiled outside the sandbox: no untrusted input is involved
                done = subprocess.run(
                    ["g++", *CXX_FLAGS, "-x", "c++-header", str(header), "-o", str(staging)],
                    capture_output=True,
                    timeout=300,
                )
                if done.returncode != 0:
                    staging.unlink(missing_ok=True)
                    return None
                staging.replace(target)
            visible = readable_copy("cojudge-pch-", {"bits/stdc++.h.gch": target})
            self._folder = str(visible)
            return visible


class Compiler:
    """Runs a language's compile command in the sandbox and keeps what it made in the compile cache."""

    def __init__(self, cache: CompileCache, pch: PrecompiledHeader, build_dir: Path):
        self.cache = cache
        self.pch = pch
        self.build_dir = build_dir  # where the sandbox's runner and the batch javac are built (ContestJudge)

    def target(self, language: str, code: str, memory_mb: int) -> tuple[LanguageSpec, Path | None, str, Path]:
        """(spec, precompiled-header folder, cache key, cache folder) of compiling ``code``."""
        pch = self.pch.folder() if language == "cpp" and isolation_level() == "bwrap" else None
        spec = language_spec(language, code, memory_mb, pch=pch is not None)
        digest, entry = self.cache.entry(language, spec, code)
        return spec, pch, digest, entry

    def compile(self, language: str, code: str, *, memory_mb: int = 256) -> Compiled:
        """``code`` compiled (from the cache when it was compiled before); a compile error is a result too."""
        spec, pch, digest, entry = self.target(language, code, memory_mb)
        with self.cache.lock(digest):
            cached = self.cache.load(entry)
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
                            spec.compile_argv,
                            box=work,
                            limits=COMPILE_LIMITS,
                            box_writable=True,
                            extra_ro_binds=runtime_binds(language),
                            ro_mounts=((str(pch), PCH_IN_BOX),) if pch is not None else (),
                            build_dir=self.build_dir,
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
                return self.cache.store(entry, work, spec, ok, message)
            finally:
                shutil.rmtree(work, ignore_errors=True)
