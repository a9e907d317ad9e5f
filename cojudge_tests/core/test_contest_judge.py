"""The contest judge on known programs: every verdict in every language, caching, judging order."""

from __future__ import annotations

import dataclasses

import pytest

from cojudge_assets.core.execution.contest_judge import Verdict, normalize_language, tokens_match
from cojudge_assets.core.execution.contest_judge.languages import run_limits
from cojudge_tests.conftest import record_boxes

PROGRAMS = {
    (
        "c",
        Verdict.AC,
    ): '#include <stdio.h>\nint main(void){long long a,b;scanf("%lld %lld",&a,&b);printf("%lld\\n",a+b);return 0;}\n',
    (
        "c",
        Verdict.WA,
    ): '#include <stdio.h>\nint main(void){int a,b;scanf("%d %d",&a,&b);printf("%d\\n",a+b);return 0;}\n',
    (
        "c",
        Verdict.TLE,
    ): (
        "#include <stdio.h>\n"
        'int main(void){volatile unsigned long x=0;long long a,b;scanf("%lld %lld",&a,&b);for(;;)x++;}\n'
    ),
    (
        "c",
        Verdict.RE,
    ): (
        "#include <stdio.h>\n"
        'int main(void){long long a,b;scanf("%lld %lld",&a,&b);int *p=(int*)0;*p=(int)a;return 0;}\n'
    ),
    ("c", Verdict.CE): "int main(void){ return undefined_name; }\n",
    ("cpp", Verdict.AC): '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a+b<<"\\n";}\n',
    ("cpp", Verdict.WA): '#include <iostream>\nint main(){long long a,b;std::cin>>a>>b;std::cout<<a-b<<"\\n";}\n',
    (
        "cpp",
        Verdict.TLE,
    ): "#include <iostream>\nint main(){volatile long x=0;long long a,b;std::cin>>a>>b;while(true)x++;}\n",
    (
        "cpp",
        Verdict.RE,
    ): (
        "#include <vector>\n"
        "#include <iostream>\n"
        "int main(){std::vector<int> v;long long a,b;std::cin>>a>>b;std::cout<<v.at(a);}\n"
    ),
    ("cpp", Verdict.CE): "#include <iostream>\nint main(){ std::cout << 1 }\n",
    (
        "java",
        Verdict.AC,
    ): (
        "import java.util.*;\n"
        "public class Main{public static void main(String[] x){"
        "Scanner s=new Scanner(System.in);long a=s.nextLong(),b=s.nextLong();"
        "System.out.println(a+b);}}\n"
    ),
    (
        "java",
        Verdict.WA,
    ): (
        "import java.util.*;\n"
        "public class Main{public static void main(String[] x){"
        "Scanner s=new Scanner(System.in);int a=s.nextInt(),b=s.nextInt();"
        "System.out.println(a*b);}}\n"
    ),
    (
        "java",
        Verdict.TLE,
    ): (
        "public class Main{public static void main(String[] x){"
        "long c=0;while(true){c++; if(c==-1) break;} "
        "System.out.println(c);}}\n"
    ),
    (
        "java",
        Verdict.RE,
    ): "public class Main{public static void main(String[] x){int[] v=new int[1]; System.out.println(v[3]);}}\n",
    (
        "java",
        Verdict.CE,
    ): "public class Main{public static void main(String[] x){ List<Integer> v = new ArrayList<>(); }}\n",
    ("python", Verdict.AC): "a, b = map(int, input().split())\nprint(a + b)\n",
    ("python", Verdict.WA): "a, b = map(int, input().split())\nprint(a + b + 1)\n",
    ("python", Verdict.TLE): "x = 0\nwhile True:\n    x += 1\n",
    ("python", Verdict.RE): "a, b = map(int, input().split())\nprint([0][a])\n",
    ("python", Verdict.CE): "def f(:\n    pass\n",
}


@pytest.mark.parametrize("language,verdict", sorted(PROGRAMS, key=str), ids=lambda v: str(v))
def test_known_program_gets_its_verdict(judge, sum_problem, language, verdict):
    result = judge.judge(sum_problem, language, PROGRAMS[(language, verdict)])
    assert result.verdict == verdict, result.summary()
    if verdict == Verdict.CE:
        assert result.compile_message and not result.tests
    elif verdict == Verdict.AC:
        assert [t.verdict for t in result.tests] == [Verdict.AC] * 3
    else:
        # judging stops at the first failing test, and that test decides the verdict
        assert result.tests[-1].verdict == verdict
        assert all(t.verdict == Verdict.AC for t in result.tests[:-1])


def test_overflow_fails_only_on_the_big_test(judge, sum_problem):
    result = judge.judge(sum_problem, "c", PROGRAMS[("c", Verdict.WA)])
    assert [t.test for t in result.tests] == ["sample/1", "secret/1"]
    assert result.first_failure.test == "secret/1"


def test_time_limit_is_cpu_time_and_reported(judge, sum_problem, monkeypatch):
    # the wall-clock backstop (2 x limit + 1 s) stops a busy loop first when a loaded machine gives it less than a
    # third of a core; here it is far away, so what stops the program is the CPU limit this test is about
    def roomy(language, **kwargs):
        return dataclasses.replace(run_limits(language, **kwargs), wall_s=60.0)

    monkeypatch.setattr(judge, "run_limits", roomy)
    # a variant of the program: judged afresh here, not read from the result cache
    result = judge.judge(sum_problem, "c", PROGRAMS[("c", Verdict.TLE)] + "int timed_afresh = 1;\n")
    assert not result.from_cache
    outcome = result.tests[0]
    assert outcome.verdict == Verdict.TLE and "CPU limit" in outcome.detail
    # stopped by the kernel at the limit, which samples CPU at each tick, while the time reported is the precise
    # figure: on a loaded machine the sampled count runs ahead of it (0.87 s reported at a 1 s limit was seen)
    assert 0.75 * sum_problem.time_limit_s <= outcome.cpu_s <= 1.5 * sum_problem.time_limit_s


def test_compilation_is_cached_by_code_hash(judge, sum_problem):
    code = PROGRAMS[("cpp", Verdict.AC)] + "// cache probe\n"
    first = judge.judge(sum_problem, "cpp", code)
    second = judge.judge(sum_problem, "cpp", code)
    assert (first.compile_cached, second.compile_cached) == (False, True)
    assert second.verdict == Verdict.AC
    other = judge.judge(sum_problem, "cpp", code + "\n")
    assert other.compile_cached is False


def test_compile_errors_are_cached_too(judge, sum_problem):
    code = PROGRAMS[("c", Verdict.CE)] + "/* probe */\n"
    first, second = judge.judge(sum_problem, "c", code), judge.judge(sum_problem, "c", code)
    assert second.compile_cached and second.verdict == Verdict.CE
    assert second.compile_message == first.compile_message


def test_judge_many_keeps_order_and_uses_all_cores(judge, sum_problem):
    items = [
        (sum_problem, lang, PROGRAMS[(lang, v)])
        for (lang, v) in [("python", Verdict.WA), ("c", Verdict.AC), ("python", Verdict.RE), ("cpp", Verdict.CE)]
    ]
    results = judge.judge_many(items)
    assert [r.verdict for r in results] == [Verdict.WA, Verdict.AC, Verdict.RE, Verdict.CE]
    import os

    assert judge.workers == (os.cpu_count() or 1)


def test_java_class_name_is_taken_from_the_code(judge, sum_problem):
    code = PROGRAMS[("java", Verdict.AC)].replace("class Main", "class Solution")
    assert judge.judge(sum_problem, "java", code).verdict == Verdict.AC


@pytest.mark.parametrize(
    "label,expected",
    [
        ("GNU C++17", "cpp"),
        ("C (GCC 12, C11)", "c"),
        ("Java 17 (OpenJDK)", "java"),
        ("Python 3.11", "python"),
        ("C++17 (GCC 12)", "cpp"),
        ("C", "c"),
    ],
)
def test_language_labels(label, expected):
    assert normalize_language(label) == expected


def test_unknown_language_is_a_clear_error():
    with pytest.raises(ValueError, match="Haskell"):
        normalize_language("Haskell")


def test_token_comparison():
    assert tokens_match(b"1  2\n3\n", b"1 2 3")
    assert not tokens_match(b"1 2", b"1 2 3")
    assert not tokens_match(b"1.0", b"1")
    assert tokens_match(b"0.3333", b"0.33333", float_tolerance=1e-3)


def test_results_are_cached_by_program_tests_and_stop_rule(judge, sum_problem):
    code = PROGRAMS[("c", Verdict.WA)] + "int result_cache_probe = 2;\n"  # another binary than the plain WA
    first = judge.judge(sum_problem, "c", code)
    again = judge.judge(sum_problem, "c", code)
    assert not first.from_cache and again.from_cache
    assert again.summary() == first.summary()
    # another stop rule or another test set is another result
    every = judge.judge(sum_problem, "c", code, stop_at_first_failure=False)
    assert not every.from_cache and len(every.tests) == len(sum_problem.tests)
    samples = judge.judge(sum_problem, "c", code, tests=sum_problem.samples)
    assert not samples.from_cache and samples.verdict == Verdict.AC


@pytest.mark.parametrize("language", ["c", "cpp", "java"])
def test_an_edit_the_compiler_erases_reuses_the_result_of_the_same_binary(judge, sum_problem, language):
    code = PROGRAMS[(language, Verdict.AC)]
    first = judge.judge(sum_problem, language, code + "\n")
    commented = code.replace("\n", "\n// a comment the compiler drops\n", 1)
    again = judge.judge(sum_problem, language, commented)
    assert again.from_cache and again.summary()["tests"] == first.summary()["tests"]
    assert judge.compile(language, commented).artifact_sha256 == judge.compile(language, code + "\n").artifact_sha256
    # a real change is a new binary, judged afresh
    changed = judge.judge(
        sum_problem,
        language,
        code.replace("\n", "\nclass Unused {}\n", 1) if language == "java" else code + "int really_changed = 3;\n",
    )
    assert not changed.from_cache


def test_cpp_uses_the_precompiled_header_and_falls_back_when_macros_differ(judge, sum_problem):
    from cojudge_assets.core.execution.sandbox import isolation_level

    if isolation_level() != "bwrap":
        pytest.skip("the precompiled header is mounted by bubblewrap only")
    pch = judge._pch_dir()
    assert pch is not None and (pch / "bits" / "stdc++.h.gch").stat().st_size > 1_000_000
    plain = "#include <bits/stdc++.h>\nusing namespace std;\nint main(){long long a,b;cin>>a>>b;cout<<a+b<<endl;}\n"
    assert judge.judge(sum_problem, "cpp", plain).verdict == Verdict.AC
    # NDEBUG set before the include: GCC refuses the header compiled without it and reads the real one
    guarded = "#define NDEBUG 1\n" + plain.replace("cout<<a+b", "assert(a < 0);cout<<a+b")
    assert judge.judge(sum_problem, "cpp", guarded).verdict == Verdict.AC
    assert judge.judge(sum_problem, "cpp", guarded.replace("#define NDEBUG 1\n", "")).verdict == Verdict.RE


JAVA_BATCH = {
    "ac": PROGRAMS[("java", Verdict.AC)],
    "wa": PROGRAMS[("java", Verdict.WA)],
    "ce": PROGRAMS[("java", Verdict.CE)],
    "named": PROGRAMS[("java", Verdict.AC)].replace("class Main", "class Solver"),
    "warning": (
        "import java.util.*;\npublic class Main{public static void main(String[] x){List v=new ArrayList();"
        "v.add(1);Scanner s=new Scanner(System.in);System.out.println(s.nextLong()+s.nextLong());}}\n"
    ),
    "packaged": "package contest;\n" + PROGRAMS[("java", Verdict.AC)],
}


def test_java_batch_compiles_what_javac_run_alone_compiles(tmp_path):
    """One JVM compiling many programs leaves the very cache entries one javac per program leaves."""
    from cojudge_assets.core.execution.contest_judge import ContestJudge

    batched, alone = ContestJudge(tmp_path / "batched"), ContestJudge(tmp_path / "alone")
    # a program with a package declaration is left to compile() (its classes would land elsewhere)
    assert batched.precompile([("java", code, 256) for code in JAVA_BATCH.values()]) == len(JAVA_BATCH) - 1
    assert not batched.compile("java", JAVA_BATCH["packaged"]).cached
    for name, code in JAVA_BATCH.items():
        one, other = batched.compile("java", code), alone.compile("java", code)
        assert one.cached and not other.cached, name
        assert (one.ok, one.message, one.artifact_sha256) == (other.ok, other.message, other.artifact_sha256), name
        assert sorted(p.name for p in one.artifact_dir.iterdir()) == sorted(
            p.name for p in other.artifact_dir.iterdir()
        )
    # the messages name the file as the javac command in the program's folder names it
    message = batched.compile("java", JAVA_BATCH["ce"]).message
    assert message.startswith("Main.java:1: error: cannot find symbol") and "/Main.java" not in message
    assert "unchecked" in batched.compile("java", JAVA_BATCH["warning"]).message
    # nothing new: nothing compiled
    assert batched.precompile([("java", code, 256) for code in JAVA_BATCH.values()]) == 0


def test_programs_a_stopped_batch_did_not_reach_are_compiled_one_by_one(tmp_path, monkeypatch, sum_problem):
    from cojudge_assets.core.execution import contest_judge
    from cojudge_assets.core.execution.contest_judge import java_batch

    # a BatchJavac that stops after the first program, as a batch stopped at its limit does
    source = java_batch.BATCH_JAVAC_SOURCE.read_text().replace(
        "for (int i = 0; i < lines.size(); i++)", "for (int i = 0; i < Math.min(1, lines.size()); i++)"
    )
    assert "Math.min(1" in source
    (tmp_path / "BatchJavac.java").write_text(source)
    monkeypatch.setattr(java_batch, "BATCH_JAVAC_SOURCE", tmp_path / "BatchJavac.java")
    java_batch._batch_javac.cache_clear()
    try:
        judge = contest_judge.ContestJudge(tmp_path / "cache", build_dir=tmp_path / "build", workers=1)
        codes = [JAVA_BATCH["ac"], JAVA_BATCH["wa"], JAVA_BATCH["ce"], JAVA_BATCH["named"]]
        assert judge.precompile([("java", code, sum_problem.memory_mb) for code in codes]) == 1
        results = judge.judge_many([(sum_problem, "java", code) for code in codes])
        assert [r.verdict for r in results] == [Verdict.AC, Verdict.WA, Verdict.CE, Verdict.AC]
        assert [r.compile_cached for r in results] == [True, False, False, False]
        assert len(list((tmp_path / "build" / "javac").glob("*/BatchJavac.class"))) == 1  # built where handed
    finally:
        java_batch._batch_javac.cache_clear()


def test_a_test_outcome_is_measured_once_whatever_the_test_is_called(tmp_path, sum_problem):
    """sample-exec's examples are the package's samples under other names: their outcomes are reused."""
    from cojudge_assets.core.execution.contest_judge import ContestJudge
    from cojudge_tests.conftest import write_problem

    judge = ContestJudge(tmp_path / "cache")
    code = PROGRAMS[("c", Verdict.WA)]
    first = judge.judge(sum_problem, "c", code)
    assert first.verdict == Verdict.WA
    calls = []
    measure = judge.run_test
    judge.run_test = lambda *args, **kwargs: calls.append(args[3].name) or measure(*args, **kwargs)
    renamed = write_problem(
        tmp_path / "renamed",
        {"sample/e1": ("3 4\n", "7\n"), "sample/e2": ("-5 5\n", "0\n"), "sample/e3": ("1 1\n", "2\n")},
    )
    again = judge.judge(renamed, "c", code, stop_at_first_failure=False)
    assert not again.from_cache and again.verdict == Verdict.AC
    assert [t.test for t in again.tests] == ["sample/e1", "sample/e2", "sample/e3"]
    # e1 is sample/1; e2 is secret/2, which never ran (judging stopped at secret/1); e3 is new
    assert calls == ["sample/e2", "sample/e3"]
    assert again.tests[0].cpu_s == first.tests[0].cpu_s
    # another answer to the same input is another test
    changed = write_problem(tmp_path / "changed", {"sample/e1": ("3 4\n", "8\n")})
    assert judge.judge(changed, "c", code).verdict == Verdict.WA and calls[-1] == "sample/e1"


def test_a_program_javac_is_slow_on_ends_its_batch_and_is_compiled_alone(tmp_path, monkeypatch, sum_problem):
    from cojudge_assets.core.execution import contest_judge
    from cojudge_assets.core.execution.contest_judge import java_batch

    monkeypatch.setattr(java_batch, "JAVA_BATCH_PROGRAM_S", 0.3)
    # 12,000 methods: about a second of javac, past the per-program limit of the batch (not of compile())
    methods = "\n".join(f"static long f{i}(long x){{return x*{i}+{i % 7};}}" for i in range(12_000))
    slow = PROGRAMS[("java", Verdict.AC)].replace("public class Main{", "public class Main{" + methods + "\n", 1)
    judge = contest_judge.ContestJudge(tmp_path / "cache", workers=1)
    codes = [slow, JAVA_BATCH["ac"], JAVA_BATCH["wa"], JAVA_BATCH["ce"]]
    assert judge.precompile([("java", code, sum_problem.memory_mb) for code in codes]) == 0
    results = judge.judge_many([(sum_problem, "java", code) for code in codes])
    assert [r.verdict for r in results] == [Verdict.AC, Verdict.AC, Verdict.WA, Verdict.CE]


def test_a_batch_the_sandbox_cannot_start_leaves_every_program_to_compile(tmp_path, monkeypatch, sum_problem):
    from cojudge_assets.core.execution import contest_judge
    from cojudge_assets.core.execution.contest_judge import java_batch
    from cojudge_assets.core.execution.sandbox import SandboxError

    real = java_batch.run_sandboxed

    def no_batches(argv, **kwargs):
        if "BatchJavac" in argv:
            raise SandboxError("the sandbox could not run java (test)")
        return real(argv, **kwargs)

    monkeypatch.setattr(java_batch, "run_sandboxed", no_batches)  # where the batch calls the sandbox
    boxes = record_boxes(monkeypatch, "cojudge-javac-")
    judge = contest_judge.ContestJudge(tmp_path / "cache")
    codes = [JAVA_BATCH["ac"], JAVA_BATCH["wa"], JAVA_BATCH["ce"], JAVA_BATCH["named"]]
    assert judge.precompile([("java", code, sum_problem.memory_mb) for code in codes]) == 0
    results = judge.judge_many([(sum_problem, "java", code) for code in codes])
    assert [r.verdict for r in results] == [Verdict.AC, Verdict.WA, Verdict.CE, Verdict.AC]
    assert boxes and not any(box.exists() for box in boxes)  # the batch ran, and its box is removed
