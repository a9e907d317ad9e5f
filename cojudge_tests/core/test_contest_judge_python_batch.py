"""Python programs syntax-checked in batches (one sandboxed interpreter for many) against one check each."""

from __future__ import annotations

from cojudge_assets.core.execution.contest_judge import ContestJudge, Verdict, python_batch
from cojudge_assets.core.execution.sandbox import SandboxError
from cojudge_tests.conftest import record_boxes

PYTHON_BATCH = {
    "ac": "a, b = map(int, input().split())\nprint(a + b)\n",
    "wa": "a, b = map(int, input().split())\nprint(a + b + 1)\n",
    "syntax error": "def f(:\n    pass\n",
    "indentation": "if True:\nprint(1)\n",
    "outside function": "return 5\n",
    "non-ascii error": "# 入力を読む\nx = (\n",
    "warning": "a, b = map(int, input().split())\nif a is 1: print('一')\nprint(a + b)\n",
    "same warning": "a, b = map(int, input().split())\nif b is 1: print('一')\nprint(a + b)\n",
    "null byte": "x = 1\0\n",
    "nested too deep": "x = " + "(" * 300 + ")" * 300 + "\n",
}
# sources that blow the compiler up (its recursion, the parser's stack): what they raise depends on the
# process's own limits, so the batch leaves them to compile(), which checks each alone
HOSTILE = {
    "recursion": "x = 1" + " + 1" * 100_000 + "\n",
    "parser stack": "x = " + "not " * 100_000 + "1\n",
}


def _same(one, other) -> tuple:
    return (one.ok, one.message, one.artifact_sha256), (other.ok, other.message, other.artifact_sha256)


def test_python_batch_checks_what_the_interpreter_run_alone_checks(tmp_path):
    """One interpreter checking many programs leaves the very cache entries one check per program leaves."""
    batched, alone = ContestJudge(tmp_path / "batched"), ContestJudge(tmp_path / "alone")
    programs = {**PYTHON_BATCH, **HOSTILE}
    items = [("python", code, 256) for code in programs.values()] + [("python", PYTHON_BATCH["ac"], 256)]
    assert batched.precompile(items) == len(PYTHON_BATCH)  # each distinct one once; not the hostile ones
    for name, code in programs.items():
        one, other = batched.compile("python", code), alone.compile("python", code)
        assert one.cached == (name in PYTHON_BATCH) and not other.cached, name
        first, second = _same(one, other)
        assert first == second, name
        assert sorted(p.name for p in one.artifact_dir.iterdir()) == sorted(
            p.name for p in other.artifact_dir.iterdir()
        ), name
    # the messages are the interpreter's own: a traceback from the check's frame, a warning with its line
    message = batched.compile("python", PYTHON_BATCH["syntax error"]).message
    assert message.startswith(
        'Traceback (most recent call last):\n  File "<string>", line 1, in <module>\n  File "main.py", line 1\n'
    ) and message.endswith("SyntaxError: invalid syntax\n")
    assert "'(' was never closed" in batched.compile("python", PYTHON_BATCH["non-ascii error"]).message
    for name in ("warning", "same warning"):  # each program gets its own warning, quoting its own line
        warned = batched.compile("python", PYTHON_BATCH[name])
        assert warned.ok and "SyntaxWarning" in warned.message, name
        assert f"if {'a' if name == 'warning' else 'b'} is 1: print('一')" in warned.message, name
    for name, code in HOSTILE.items():
        hostile = batched.compile("python", code)
        assert not hostile.ok and "Error" in hostile.message, name
    # nothing new: nothing checked
    assert batched.precompile(items) == 0


def test_a_program_that_ends_a_python_batch_is_checked_alone_and_the_batch_goes_on(tmp_path, monkeypatch, sum_problem):
    monkeypatch.setattr(python_batch, "PYTHON_BATCH_PROGRAM_S", 0.3)
    # 100,000 statements: about a second of the compiler, past the per-program limit of the batch (not of
    # compile()): the alarm ends the batch's interpreter inside the compiler, as a crash of it would
    slow = "".join(f"x{i} = {i} * 2 + 3\n" for i in range(100_000)) + PYTHON_BATCH["ac"]
    judge = ContestJudge(tmp_path / "cache", workers=1)
    codes = [PYTHON_BATCH["ac"], slow, PYTHON_BATCH["wa"], PYTHON_BATCH["syntax error"]]
    # the program before it, and those after it in a new batch
    assert judge.precompile([("python", code, sum_problem.memory_mb) for code in codes]) == 3
    checked_alone = judge.compile("python", slow, memory_mb=sum_problem.memory_mb)
    assert checked_alone.ok and not checked_alone.cached
    others = [code for code in codes if code != slow]
    results = judge.judge_many([(sum_problem, "python", code) for code in others])
    assert [r.verdict for r in results] == [Verdict.AC, Verdict.WA, Verdict.CE]
    assert [r.compile_cached for r in results] == [True, True, True]


def test_a_python_batch_the_sandbox_cannot_start_leaves_every_program_to_compile(tmp_path, monkeypatch, sum_problem):
    real = python_batch.run_sandboxed

    def no_batches(argv, **kwargs):
        if any(arg.endswith("batch_pycheck.py") for arg in argv):
            raise SandboxError("the sandbox could not run python3 (test)")
        return real(argv, **kwargs)

    monkeypatch.setattr(python_batch, "run_sandboxed", no_batches)
    boxes = record_boxes(monkeypatch, "cojudge-pycheck-")
    judge = ContestJudge(tmp_path / "cache")
    codes = [PYTHON_BATCH["ac"], PYTHON_BATCH["wa"], PYTHON_BATCH["syntax error"]]
    assert judge.precompile([("python", code, sum_problem.memory_mb) for code in codes]) == 0
    results = judge.judge_many([(sum_problem, "python", code) for code in codes])
    assert [r.verdict for r in results] == [Verdict.AC, Verdict.WA, Verdict.CE]
    assert [r.compile_cached for r in results] == [False, False, False]
    assert boxes and not any(box.exists() for box in boxes)  # the batch ran, and its box is removed
