"""The contest judge's caches alone (no sandbox): keys, record formats, round trips, what is never stored."""

from __future__ import annotations

import json

from cojudge_assets.core.execution.contest_judge.cache import (
    RESULT_CACHE_VERSION,
    CompileCache,
    Compiled,
    ResultCache,
    artifact_digest,
)
from cojudge_assets.core.execution.contest_judge.languages import language_spec
from cojudge_assets.core.execution.contest_judge.verdict import JudgeResult, Verdict
from cojudge_assets.core.execution.contest_judge.verdict import TestOutcome as Outcome  # not a test class
from cojudge_assets.core.execution.sandbox import Limits, isolation_record
from cojudge_tests.conftest import write_problem

C_CODE = "int main(void){return 0;}\n"
JAVA_CODE = "public class Main{public static void main(String[] a){}}\n"


def _problem(tmp_path, name="sum", answer="0\n"):
    return write_problem(
        tmp_path / "problems", {"sample/1": ("3 4\n", "7\n"), "secret/1": ("-5 5\n", answer)}, name=name
    )


def test_keys_are_the_ones_caches_on_disk_were_written_under(tmp_path):
    """The compile keys were computed with the one-module judge before the split (commit 9dafd70): a cache it
    filled stays valid. The result and outcome keys changed since, on purpose, when the isolation joined them and
    when the cache version went to 4, then 5 (results are judged again; compiled programs are kept)."""
    problem = _problem(tmp_path)
    compile_cache = CompileCache(tmp_path / "cache")
    results = ResultCache(tmp_path / "cache", isolation="bwrap + seccomp, cgroup v2")
    c_spec = language_spec("c", C_CODE, 256)
    assert RESULT_CACHE_VERSION == "5"  # 5: a runner the program cannot touch (results keys changed)
    assert compile_cache.entry("c", c_spec, C_CODE)[0] == (
        "b113b7f232a4d9d7ffb278059347c79257e98df5ad96897d84cdb2cf2fe39277"
    )
    assert compile_cache.entry("java", language_spec("java", JAVA_CODE, 256), JAVA_CODE)[0] == (
        "0ff185d1ef297ee570d67cb31774f9fa832ba98220a64b7c8f4af5313fa8d9c5"
    )
    assert results.tests_digest(problem, list(problem.tests)) == (
        "80bbb3738e12616e755e390ecfb92725007804f63ec11a2f5ef10718082b1691"
    )
    assert results.result_key("c", c_spec.run_argv, "a" * 64, problem, list(problem.tests), True) == (
        "80a8f4fcb51fa2eea640daf63adae4ab219ba2922243d34f744749185bd3043c"
    )
    assert results.outcome_key("c", c_spec.run_argv, "a" * 64, problem.tests[1], problem) == (
        "5f05f13f6fa4a1974d8a7d042e32677ec123f7d70ebb51341836d45e1cb3d6ba"
    )


def test_a_compiled_program_is_stored_whole_and_read_back(tmp_path):
    cache = CompileCache(tmp_path / "cache")
    spec = language_spec("c", C_CODE, 256)
    digest, entry = cache.entry("c", spec, C_CODE)
    assert entry == tmp_path / "cache" / digest[:2] / digest
    assert not cache.holds(entry) and cache.load(entry) is None
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.c").write_text(C_CODE)
    (work / "prog").write_bytes(b"\x7fELF binary")
    stored = cache.store(entry, work, spec, True, "a warning")
    assert cache.holds(entry) and not stored.cached
    assert stored.artifact_sha256 == artifact_digest(work, "main.c", compiled=True)
    again = cache.load(entry)
    assert again == Compiled(True, entry / "artifact", "a warning", cached=True, artifact_sha256=stored.artifact_sha256)
    assert (again.artifact_dir / "prog").read_bytes() == b"\x7fELF binary"
    # another writer of the same entry loses the race: the entry keeps what the first stored
    (work / "prog").write_bytes(b"another binary")
    late = cache.store(entry, work, spec, False, "")
    assert (late.ok, late.message, late.artifact_sha256) == (True, "a warning", stored.artifact_sha256)
    assert not list(cache.root.glob(".staging-*"))


def test_a_compile_error_has_no_digest_of_what_runs(tmp_path):
    cache = CompileCache(tmp_path / "cache")
    spec = language_spec("c", "int main(", 256)
    work = tmp_path / "work"
    work.mkdir()
    (work / "main.c").write_text("int main(")
    stored = cache.store(cache.entry("c", spec, "int main(")[1], work, spec, False, "error: expected")
    assert (stored.ok, stored.artifact_sha256, stored.message) == (False, "", "error: expected")


def test_the_digest_of_what_runs_leaves_out_a_compiled_languages_source(tmp_path):
    one, other = tmp_path / "one", tmp_path / "other"
    for folder, comment in ((one, ""), (other, "// a comment\n")):
        folder.mkdir()
        (folder / "main.c").write_text(comment + C_CODE)
        (folder / "prog").write_bytes(b"same binary")
    assert artifact_digest(one, "main.c", compiled=True) == artifact_digest(other, "main.c", compiled=True)
    assert artifact_digest(one, "main.c", compiled=False) != artifact_digest(other, "main.c", compiled=False)
    (other / "prog").write_bytes(b"another binary")
    assert artifact_digest(one, "main.c", compiled=True) != artifact_digest(other, "main.c", compiled=True)


def test_a_result_round_trips_in_its_record_format(tmp_path):
    results = ResultCache(tmp_path / "cache")
    outcome = Outcome("sample/1", Verdict.WA, 0.5, 0.75, "output differs", "b" * 64)
    result = JudgeResult(
        Verdict.WA, "c", [outcome], "", compile_cached=False, isolation="bwrap", isolation_limits={"cpu": "x"}
    )
    key = "b75eb3def45f9130cf92e02d35ad30ebe243c276251c42db4066bfbbec56a4de"
    assert results.load_result(key, compile_cached=True) is None
    results.store_result(key, result)
    record = tmp_path / "cache" / "results" / key[:2] / f"{key}.json"
    assert json.loads(record.read_text()) == {
        "verdict": "WA",
        "language": "c",
        "compile_message": "",
        "compile_cached": False,
        "isolation": "bwrap",
        "isolation_limits": {"cpu": "x"},
        "tests": [
            {
                "test": "sample/1",
                "verdict": "WA",
                "cpu_s": 0.5,
                "wall_s": 0.75,
                "detail": "output differs",
                "output_sha256": "b" * 64,
            }
        ],
    }
    again = results.load_result(key, compile_cached=True)
    assert again is not None and again.from_cache and again.compile_cached
    assert (again.verdict, again.tests, again.isolation_limits) == (Verdict.WA, [outcome], {"cpu": "x"})
    assert not list(record.parent.glob("*.tmp"))


def test_a_judge_error_is_never_stored(tmp_path):
    results = ResultCache(tmp_path / "cache")
    failed = Outcome("secret/1", Verdict.JUDGE_ERROR, 0.0, 0.0, "the sandbox could not run it")
    passed = Outcome("sample/1", Verdict.AC, 0.1, 0.1)
    results.store_result("ab" * 32, JudgeResult(Verdict.JUDGE_ERROR, "c", [passed, failed]))
    results.store_outcome("cd" * 32, failed)
    assert results.load_result("ab" * 32, compile_cached=False) is None
    assert results.load_outcome("cd" * 32, "secret/1") is None
    assert not (tmp_path / "cache").exists()


def test_an_outcome_is_keyed_by_the_tests_content_and_named_by_the_test_that_asks(tmp_path):
    results = ResultCache(tmp_path / "cache")
    problem, renamed = _problem(tmp_path), write_problem(tmp_path / "renamed", {"sample/e2": ("-5 5\n", "0\n")})
    other_answer = _problem(tmp_path, name="other", answer="1\n")
    argv = language_spec("c", C_CODE, 256).run_argv
    key = results.outcome_key("c", argv, "a" * 64, problem.tests[1], problem)
    assert results.outcome_key("c", argv, "a" * 64, renamed.tests[0], renamed) == key
    assert results.outcome_key("c", argv, "a" * 64, other_answer.tests[1], other_answer) != key
    assert results.outcome_key("c", argv, "f" * 64, problem.tests[1], problem) != key
    results.store_outcome(key, Outcome("secret/1", Verdict.AC, 0.25, 0.5, "", "c" * 64))
    assert results.load_outcome(key, "sample/e2") == Outcome("sample/e2", Verdict.AC, 0.25, 0.5, "", "c" * 64)


def test_a_verdict_depends_on_the_stop_rule_and_the_test_set(tmp_path):
    results = ResultCache(tmp_path / "cache")
    problem = _problem(tmp_path)
    argv = language_spec("c", C_CODE, 256).run_argv
    every = results.result_key("c", argv, "a" * 64, problem, list(problem.tests), True)
    assert results.result_key("c", argv, "a" * 64, problem, list(problem.tests), False) != every
    assert results.result_key("c", argv, "a" * 64, problem, list(problem.samples), True) != every
    assert results.result_key("c", argv, "source:int main(", problem, list(problem.tests), True) != every


def test_a_result_is_keyed_by_the_isolation_it_was_judged_under(tmp_path):
    """A result judged without the seccomp filter (or without namespaces) is not reused where runs have it."""
    problem = _problem(tmp_path)
    argv = language_spec("c", C_CODE, 256).run_argv
    filtered = ResultCache(tmp_path / "cache", isolation="bwrap + seccomp, cgroup v2")
    unfiltered = ResultCache(tmp_path / "cache", isolation="bwrap, cgroup v2")
    again = ResultCache(tmp_path / "cache", isolation="bwrap + seccomp, cgroup v2")

    def keys(cache: ResultCache) -> tuple[str, str]:
        return (
            cache.result_key("c", argv, "a" * 64, problem, list(problem.tests), True),
            cache.outcome_key("c", argv, "a" * 64, problem.tests[0], problem),
        )

    assert keys(filtered) == keys(again)
    assert keys(filtered)[0] != keys(unfiltered)[0] and keys(filtered)[1] != keys(unfiltered)[1]
    # by default, this machine's own isolation, as the sandbox reports it
    assert ResultCache(tmp_path / "cache").isolation == str(isolation_record(Limits()))
