"""The built-in contest judge: compile a submission, run it on a problem's tests, give a verdict.

Verdicts are the five the study uses: AC, WA, TLE, RE, CE, and ``JUDGE_ERROR``
when the judge itself could not run a submission (the sandbox could not start;
the reason is in the test's detail or ``JudgeResult.error``): never an exception
to the caller of :meth:`ContestJudge.judge` or :meth:`ContestJudge.judge_many`,
never cached, so a re-run tries again. Tests run in judging
order (samples, then secret tests, each in file-name order) and judging stops at
the first test that is not AC, as contest systems do; that test decides the
verdict. An output over the output cap counts as WA ("output limit exceeded");
a file the program writes itself (in its ``/tmp``) past the same file-size
limit is RE ("file size limit exceeded"), told apart by the size of its stdout
and stderr when the kernel's SIGXFSZ ended it.
A memory-limit kill is RE, as the corpora record it (CodeNet's "Memory Limit
Exceeded" is RE): seen by the run's control group (its ``oom_kill`` count), the
detail says "memory limit exceeded". So does a run stopped at its CPU limit while
its own memory (anonymous and tmpfs pages) filled all but an eighth of the limit it
had reached: the kernel then reclaims the program's file pages, which it reads
back at once, and can burn the CPU limit before its OOM killer acts (a JVM that
allocates off its heap did so on a CI machine). Without a control group the program
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
same classes and messages as the javac command; Python programs likewise, one
interpreter per worker syntax-checking many, with the messages of the check
run alone. Judge results are cached the
same way, by (compiled program, tests, limits, stop rule), and so is each
test's outcome, by (compiled program, the test's input and answer, limits):
a re-run of the label audit or the perturbation study after a data fix
re-judges only programs it has not judged before, a mutant the compiler turns
into its seed's very binary is not run again, and ``sample-exec`` does not run
again the samples the label audit ran.

The parts, one responsibility each (this package re-exports their public names):

- :mod:`.languages`: language names, compile and run commands, limits;
- :mod:`.verdict`: the verdicts, the records of a judged test and submission, the rules of a run's verdict;
- :mod:`.cache`: the compile, result and test-outcome caches on disk, their keys and atomic writes;
- :mod:`.compiler`: compiling one program in the sandbox, the precompiled C++ header;
- :mod:`.java_batch`: compiling many Java programs in one JVM;
- :mod:`.python_batch`: syntax-checking many Python programs in one interpreter;
- :mod:`.judge`: :class:`ContestJudge`, the front: the test loop, one test's run, the worker pool.
"""

from __future__ import annotations

from cojudge_assets.core.execution.contest_judge.cache import RESULT_CACHE_VERSION, Compiled, artifact_digest
from cojudge_assets.core.execution.contest_judge.java_batch import (
    BATCH_JAVAC_SOURCE,
    JAVA_BATCH_FROM,
    JAVA_BATCH_PROGRAM_S,
)
from cojudge_assets.core.execution.contest_judge.judge import ContestJudge
from cojudge_assets.core.execution.contest_judge.languages import (
    COMPILE_LIMITS,
    CXX_FLAGS,
    EXTENSION_LANGUAGE,
    EXTENSIONS,
    JAVA_RUN_FLAGS,
    JAVA_RUN_OVERHEAD_MB,
    LANGUAGE_ALIASES,
    PCH_IN_BOX,
    LanguageSpec,
    java_main_class,
    language_spec,
    normalize_language,
    python_executable,
    runtime_binds,
)
from cojudge_assets.core.execution.contest_judge.verdict import JudgeResult, TestOutcome, Verdict, tokens_match

__all__ = [
    "BATCH_JAVAC_SOURCE",
    "COMPILE_LIMITS",
    "CXX_FLAGS",
    "EXTENSIONS",
    "EXTENSION_LANGUAGE",
    "JAVA_BATCH_FROM",
    "JAVA_BATCH_PROGRAM_S",
    "JAVA_RUN_FLAGS",
    "JAVA_RUN_OVERHEAD_MB",
    "LANGUAGE_ALIASES",
    "PCH_IN_BOX",
    "RESULT_CACHE_VERSION",
    "Compiled",
    "ContestJudge",
    "JudgeResult",
    "LanguageSpec",
    "TestOutcome",
    "Verdict",
    "artifact_digest",
    "java_main_class",
    "language_spec",
    "normalize_language",
    "python_executable",
    "runtime_binds",
    "tokens_match",
]
