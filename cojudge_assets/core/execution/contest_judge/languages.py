"""The languages the contest judge runs: their names, the commands that compile and run them, their limits.

Owns the language vocabulary (a corpus's label to c/cpp/java/python), each language's compile and run
command as the program sees it inside the sandbox box, and the sandbox limits of compiling and of running.
Pure: nothing here runs a program.
"""

from __future__ import annotations

import json
import os
import re
import sys
from dataclasses import dataclass

from cojudge_assets.core.execution.sandbox import Limits

LANGUAGE_ALIASES = {
    "c": "c",
    "gnu c": "c",
    "gnu c11": "c",
    "c11": "c",
    "c99": "c",
    "gcc": "c",
    "c++": "cpp",
    "cpp": "cpp",
    "g++": "cpp",
    "gnu c++": "cpp",
    "gnu c++17": "cpp",
    "c++17": "cpp",
    "c++14": "cpp",
    "c++11": "cpp",
    "c++20": "cpp",
    "gnu c++20": "cpp",
    "cc": "cpp",
    "cxx": "cpp",
    "java": "java",
    "java 17": "java",
    "java17": "java",
    "java 8": "java",
    "java8": "java",
    "java 11": "java",
    "python": "python",
    "python3": "python",
    "python 3": "python",
    "py": "python",
    "pypy3": "python",
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


JAVA_RUN_FLAGS = ["-XX:+UseSerialGC", "-XX:TieredStopAtLevel=1", "-XX:-UsePerfData", "-Xss64m"]
# the JVM's own memory beside its heap (code, metaspace, threads, GC tables, direct buffers): a JVM filling a
# 256 MB heap peaks at 270 MiB (measured in the run's cgroup); the rest is room for bigger programs
JAVA_RUN_OVERHEAD_MB = 256
COMPILE_LIMITS = Limits(cpu_s=60, wall_s=120, memory_mb=4096, max_procs=64, output_bytes=256 << 20, tmp_bytes=512 << 20)


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
            [
                "javac",
                "-J-Xmx512m",
                "-J-XX:+UseSerialGC",
                "-J-XX:TieredStopAtLevel=1",
                "-g:none",
                "-encoding",
                "UTF-8",
                f"{cls}.java",
            ],
            ["java", *JAVA_RUN_FLAGS, f"-Xmx{memory_mb}m", "-cp", ".", cls],
        )
    if language == "python":
        py = python_executable()
        check = "import sys; compile(open('main.py','rb').read(), 'main.py', 'exec')"
        return LanguageSpec("main.py", [py, "-I", "-B", "-c", check], [py, "-I", "-B", "main.py"])
    raise ValueError(f"unknown language {language!r}")


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


_COMMENT_OR_STRING = re.compile(r"//[^\n]*|/\*.*?\*/|\"(?:\\.|[^\"\\\n])*\"|'(?:\\.|[^'\\\n])*'", re.DOTALL)
_JAVA_MAIN = re.compile(r"\bstatic\b[^;{}()]*\bvoid\s+main\s*\(")
_C_MAIN = re.compile(r"(?<![.\w>])main\s*\(")


def missing_entry_point(language: str, code: str) -> str:
    """Why ``code`` is not a whole program the contest judge can build as a grader would ("" when it is one).

    A course's grader often wraps what a student wrote in a harness of its own: Java method bodies into a class
    with a ``main``, C functions into a file with a ``main``. Compiled alone, such a fragment fails whether it is
    right or wrong, so a compile error says nothing about it. A Java program is whole when a ``static void main(``
    is declared, a C or C++ one when ``main(`` is (comments and string literals aside). Python code is always whole:
    a module of definitions compiles as written (a ``return`` outside a function is the student's error, as in
    CSEDM's misindented returns). ``language`` is c/cpp/java/python (:func:`normalize_language`).

    >>> missing_entry_point("java", "public int twice(int x) { return 2 * x; }")
    'the Java code declares no static void main(...): a fragment the grader wraps in a harness of its own'
    >>> missing_entry_point("c", "int main(void) { return 0; }")
    ''
    """
    if language == "python" or not code.strip():  # Python: whole as written; empty code: nothing wrapped, a CE
        return ""
    text = _COMMENT_OR_STRING.sub(" ", code)
    if language == "java":
        if _JAVA_MAIN.search(text):
            return ""
        return "the Java code declares no static void main(...): a fragment the grader wraps in a harness of its own"
    if _C_MAIN.search(text):
        return ""
    name = "C++" if language == "cpp" else "C"
    return f"the {name} code defines no main(): a fragment the grader links with a harness of its own"
