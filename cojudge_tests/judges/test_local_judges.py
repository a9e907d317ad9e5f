"""The local judges answer through litellm exactly like a hosted model, and their answers validate."""

from __future__ import annotations

import litellm
import pytest

from cojudge_assets.core.ingest.kattis import read_problem
from cojudge_assets.core.judging.models import JudgeRequest, validate_answer
from cojudge_assets.core.judging.prompts import render
from cojudge_assets.judges.local import (
    _loop_depth,
    _max_bound,
    parse_prompt,
    register_local_judges,
    statement_examples,
)
from cojudge_tests.conftest import REPO, SHARED_CORPORA
from cojudge_tests.judges.fixtures import RecordingJudge

PAIRSUM = read_problem(REPO / "data" / "demo" / "problems" / "pairsum")


def request_for(path: str) -> JudgeRequest:
    file = PAIRSUM.root / "submissions" / path
    language = {"c": "C", "cpp": "C++17", "java": "Java 17", "py": "Python 3"}[file.suffix[1:]]
    return JudgeRequest(
        problem_id="pairsum", problem_statement=PAIRSUM.statement, language=language, source_code=file.read_text()
    )


@pytest.fixture(scope="module", autouse=True)
def local_judges(judge):
    register_local_judges(judge)


def ask(model: str, request: JudgeRequest):
    response = litellm.completion(model=f"cojudge/{model}", messages=render(request))
    result = validate_answer(response.choices[0].message.content)
    assert result.error == "", result.error
    return response, result.output


def test_prompt_round_trip():
    request = request_for("accepted/reference.py").model_copy(update={"prompt_text": "user: hi"})
    parts = parse_prompt(render(request))
    assert (parts.problem_id, parts.language, parts.statement, parts.code, parts.context) == (
        "pairsum",
        "Python 3",
        request.problem_statement,
        request.source_code,
        "user: hi",
    )


def test_statement_examples_match_the_sample_files():
    examples = statement_examples(PAIRSUM.statement)
    assert len(examples) == len(PAIRSUM.samples) >= 2
    for (inp, out), case in zip(examples, PAIRSUM.samples):
        assert inp.split() == case.input_path.read_text().split()
        assert out.split() == case.answer_path.read_text().split()


def test_sample_exec_orders_programs_by_what_the_examples_show():
    accepted = [f"accepted/{f.name}" for f in PAIRSUM.submissions("accepted") if f.suffix in (".c", ".cpp")][:2]
    good = [ask("sample-exec", request_for(p))[1].p_accept for p in accepted]
    broken = ask("sample-exec", request_for("compile_error/" + PAIRSUM.submissions("compile_error")[0].name))[1]
    assert min(good) >= 0.5 and broken.p_accept <= 0.05 and broken.s_algo == 1


def test_sample_exec_reports_its_identity_and_is_deterministic():
    request = request_for("accepted/reference.py")
    first, out1 = ask("sample-exec", request)
    _, out2 = ask("sample-exec", request)
    assert first.model.endswith("sample-exec") and out1 == out2


def test_static_rubric_reads_constraints_and_code():
    assert _max_bound("1 ≤ n ≤ 2·10^5, |a_i| ≤ 10^9")[0] == 2e5
    assert _max_bound("1 <= n <= 300000 and 0 <= x <= 1e9") == (300000.0, 1e9)
    nested = "for (int i = 0; i < n; i++) {\n  for (int j = i + 1; j < n; j++) { c++; }\n}"
    assert _loop_depth(nested, "cpp") == 2 and _loop_depth("for (i=0;i<n;i++) s+=a[i];", "c") == 1
    assert _loop_depth("for i in range(n):\n    for j in range(n):\n        pass\n", "python") == 2
    braceless = "for (i = 0; i < n; i++)\n  for (j = i; j < n; j++)\n    c++;\nfor (k = 0; k < n; k++) c--;"
    assert _loop_depth(braceless, "c") == 2
    fast = ask("static-rubric", request_for("accepted/reference.py"))[1]
    slow = ask("static-rubric", request_for("time_limit_exceeded/double_loop.c"))[1]
    assert fast.p_accept > slow.p_accept and slow.s_algo < fast.s_algo


def test_async_path():
    import asyncio

    async def go():
        return await litellm.acompletion(
            model="cojudge/static-rubric", messages=render(request_for("accepted/reference.py"))
        )

    response = asyncio.run(go())
    assert validate_answer(response.choices[0].message.content).output is not None


def test_static_rubric_notices_a_missing_special_answer():
    from cojudge_assets.judges.local import PromptParts, StaticRubricScorer

    statement = "Print the distance, or print -1 if town n cannot be reached. 1 <= n <= 100"
    with_it = PromptParts("p", "C", statement, "int main(){ long long d = -1; /* ... */ return 0; }", "")
    without = PromptParts("p", "C", statement, "int main(){ long long d = 0; /* ...... */ return 0; }", "")
    scorer = StaticRubricScorer()
    assert (
        validate_answer(scorer.score(with_it)).output.p_accept > validate_answer(scorer.score(without)).output.p_accept
    )


# -- abstention: a local judge with nothing to go on says so instead of answering a constant ------------------

HUMANEVAL_STYLE = '''def add(x: int, y: int) -> int:
    """Add two numbers x and y
    >>> add(2, 3)
    5
    """'''


class NeverCompiles:
    """A contest judge that fails the test if sample-exec asks it to compile or run anything."""

    def judge(self, *args, **kwargs):
        raise AssertionError("sample-exec ran code although it had abstained")

    compile = precompile = judge


def abstains(model: str, request: JudgeRequest) -> str:
    response = litellm.completion(model=f"cojudge/{model}", messages=render(request))
    result = validate_answer(response.choices[0].message.content)
    assert result.output is None and result.error == "", result
    return result.abstain_reason


def test_sample_exec_abstains_before_compiling_anything_when_it_has_nothing_to_compile_or_run():
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer

    scorer = SampleExecScorer(NeverCompiles())
    code = "def add(x, y):\n    return x + y\n"
    # a statement without stdin examples (a function-level prompt: the code is a fragment, not a program)
    for statement in (HUMANEVAL_STYLE, "Print the sum of two numbers."):
        answer = validate_answer(scorer.score(PromptParts("HumanEval/53", "Python 3", statement, code, "")))
        assert answer.abstained and "gives no example input with its expected output" in answer.abstain_reason
    nothing = validate_answer(scorer.score(PromptParts("p", "Python 3", "", "  \n", "")))
    assert nothing.abstained and "neither a problem statement nor code" in nothing.abstain_reason
    unknown = validate_answer(scorer.score(PromptParts("p", "Haskell", PAIRSUM.statement, "main = pure ()", "")))
    assert unknown.abstained and "cannot run code in 'Haskell'" in unknown.abstain_reason
    assert (
        scorer.prepare(
            [
                PromptParts("p", "Haskell", "", "main = pure ()", ""),
                PromptParts("p", "Java", HUMANEVAL_STYLE, "return 1;", ""),
            ]
        )
        == 0
    )
    # with examples, or without a statement, it compiles (and does not abstain before compiling)
    assert SampleExecScorer.abstention(PromptParts("pairsum", "C", PAIRSUM.statement, "", "")) == ""
    assert SampleExecScorer.abstention(PromptParts("abc221_a", "Python 3", "", code, "")) == ""


def test_without_a_statement_sample_exec_answers_a_compile_error_and_abstains_on_code_that_compiles(judge):
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer

    scorer = SampleExecScorer(judge)
    broken = validate_answer(
        scorer.score(PromptParts("abc221_a", "Python (3.8.2)", "", "print(int(input()) * 2\n", ""))
    )
    assert broken.output is not None and broken.output.rationale == "does not compile"
    assert (broken.output.p_accept, broken.output.s_algo, broken.output.s_robust) == (0.02, 1, 1)
    fine = validate_answer(scorer.score(PromptParts("abc221_a", "Python (3.8.2)", "", "print(int(input()) * 2)\n", "")))
    assert fine.abstained and fine.abstain_reason == SampleExecScorer.COMPILES_WITHOUT_EXAMPLES
    assert "compiles" in fine.abstain_reason and "no problem statement" in fine.abstain_reason
    # through litellm, as the runner sends it
    request = request_for("compile_error/pairs.py").model_copy(update={"problem_statement": ""})
    response = litellm.completion(model="cojudge/sample-exec", messages=render(request))
    assert validate_answer(response.choices[0].message.content).output.rationale == "does not compile"
    request = request_for("accepted/reference.py").model_copy(update={"problem_statement": ""})
    assert abstains("sample-exec", request) == SampleExecScorer.COMPILES_WITHOUT_EXAMPLES


def test_sample_exec_abstains_through_litellm():
    request = request_for("accepted/reference.py").model_copy(update={"problem_statement": HUMANEVAL_STYLE})
    assert "no example input" in abstains("sample-exec", request)


def test_static_rubric_abstains_when_the_statement_states_nothing_it_checks():
    from cojudge_assets.judges.local import PromptParts, StaticRubricScorer

    code = '#include <stdio.h>\nint main(){ int n; scanf("%d", &n); printf("%d\\n", n * 2); return 0; }'
    scorer = StaticRubricScorer()
    cases = {
        "": "there is no problem statement",
        "Read a number and print its double.": "writes no bound on its input",
        HUMANEVAL_STYLE: "writes no bound on its input",
    }
    for statement, expected in cases.items():
        answer = validate_answer(scorer.score(PromptParts("p", "C", statement, code, "")))
        assert answer.abstained and expected in answer.abstain_reason, (statement, answer)
    # a bound (markdown emphasis around the name included) or a special answer is something it checks
    for statement in ("1 ≤ *N* ≤ 100", "1 <= n <= 10^5", "Print -1 if there is no answer."):
        answer = validate_answer(scorer.score(PromptParts("p", "C", statement, code, "")))
        assert answer.output is not None, (statement, answer)
    request = request_for("accepted/reference.py").model_copy(update={"problem_statement": ""})
    assert "no problem statement" in abstains("static-rubric", request)


@pytest.mark.skipif(not SHARED_CORPORA.is_dir(), reason=f"shared corpora not found at {SHARED_CORPORA}")
@pytest.mark.parametrize("corpus", ["condefects-atcoder", "csedm2019-python"])
def test_on_corpora_without_statements_static_rubric_abstains_and_sample_exec_compiles(corpus):
    from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer, StaticRubricScorer

    root = SHARED_CORPORA / corpus
    problems = read_problem_table(root, "progsnap2")
    statements = dict(zip(problems["problem_id"].to_list(), problems["statement"].to_list()))
    attempts = read_corpus(
        root, "progsnap2", dict(zip(problems["problem_id"], problems["problem_id"])), contest_settings(root)
    ).attempts
    assert len(attempts) > 500
    for row in attempts.iter_rows(named=True):
        parts = PromptParts(
            row["problem_id"],
            row["language_label"] or row["language"],
            statements.get(row["problem_id"], ""),
            row["code"],
            "",
        )
        assert not parts.statement.strip()
        # sample-exec compiles every program (a compile error is evidence); only an empty one leaves it nothing
        reason = SampleExecScorer.abstention(parts)
        assert reason == "" if parts.code.strip() else "neither a problem statement nor code" in reason
        assert "no problem statement" in StaticRubricScorer.abstention(parts)


# -- prepare: the partition's Java programs compiled in one batch before scoring ---------------------------------

JAVA_PROGRAMS = [
    "accepted/Main_binsearch.java",
    "accepted/Main_merge.java",
    "compile_error/Main_long.java",
    "wrong_answer/Main_ordered.java",
]


@pytest.fixture(scope="module")
def with_and_without_prepare(tmp_path_factory):
    """The same prompts scored by sample-exec with fresh caches: after ``prepare``, and without it."""
    from cojudge_assets.judges.local import SampleExecScorer

    prompts = [
        parse_prompt(render(request_for(path).model_copy(update={"problem_statement": ""}))) for path in JAVA_PROGRAMS
    ]  # no statement: compiled only
    prompts += [parse_prompt(render(request_for(path))) for path in JAVA_PROGRAMS[::2]]  # the examples run
    prompts.append(
        parse_prompt(render(request_for("compile_error/pairs.py").model_copy(update={"problem_statement": ""})))
    )
    runs = {}
    for prepared in (True, False):
        judge = RecordingJudge(tmp_path_factory.mktemp("compile-cache"), workers=1)
        scorer = SampleExecScorer(judge)
        compiled_in_batches = scorer.prepare(prompts) if prepared else None
        runs[prepared] = (judge, compiled_in_batches, [scorer.score(parts) for parts in prompts])
    return prompts, runs


def test_prepare_compiles_the_java_programs_in_one_batch_before_scoring(with_and_without_prepare):
    prompts, runs = with_and_without_prepare
    judge, compiled_in_batches, _ = runs[True]
    # one precompile call, holding every Java program sample-exec then compiles (4 distinct: the with-statement
    # prompts repeat programs under the same limits), compiled there by one JVM (one worker)
    assert len(judge.batches) == 1 and compiled_in_batches == len(JAVA_PROGRAMS)
    assert {code for language, code, _ in judge.batches[0] if language == "java"} == {
        p.code for p in prompts if p.language.startswith("Java")
    }
    java = [cached for language, cached in judge.compiles if language == "java"]
    assert len(java) == 6 and all(java)  # every compile scoring asked for was a cache hit
    # without prepare, each program is compiled when its prompt is scored: by javac alone, one JVM each
    alone, _, _ = runs[False]
    assert alone.batches == [] and [c for language, c in alone.compiles if language == "java"].count(False) == 4


def test_answers_are_identical_with_and_without_prepare(with_and_without_prepare):
    prompts, runs = with_and_without_prepare
    assert runs[True][2] == runs[False][2]
    answers = [validate_answer(a) for a in runs[True][2]]
    # without a statement: the compile error is answered, the programs that compile are abstained on
    assert [a.abstained for a in answers[:4]] == [True, True, False, True]
    assert answers[2].output.rationale == "does not compile" and answers[-1].output.rationale == "does not compile"
    # with the statement's examples: the accepted program passes them, the compile error is answered
    assert answers[4].output.p_accept >= 0.7 and answers[5].output.rationale == "does not compile"


# -- code the grader wraps in a harness: sample-exec cannot build it as the grader did, so it abstains -------------

CODINGBAT_STYLE = (
    "Given your speed and whether it is your birthday, compute the ticket.\n\nExample\nInput:\n60 false\nOutput:\n0\n"
)


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("Java", "public int caughtSpeeding(int speed, boolean isBirthday) {\n  return speed > 80 ? 2 : 0;\n}\n"),
        (
            "Java",
            "class Solution {\n  public int twice(int x) { return 2 * x; }\n  // static void main(String[] a)\n}\n",
        ),
        ("C", "int twice(int x) { return 2 * x; }\n"),
        ("C++", 'int twice(int x) { const char *s = "main("; return 2 * x; }\n'),
    ],
)
def test_sample_exec_abstains_on_a_fragment_the_grader_wraps_in_a_harness(language, code):
    """A method body or a function without main compiles alone to an error whether it is right or wrong (the held-out
    CSEDM Java corpus: 916 attempts answered "does not compile", 61 of them accepted): sample-exec abstains, naming
    why, with or without a statement, and compiles nothing (a judge that never compiles would fail the test)."""
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer

    scorer = SampleExecScorer(NeverCompiles())
    for statement in ("", CODINGBAT_STYLE, PAIRSUM.statement):
        answer = validate_answer(scorer.score(PromptParts("p", language, statement, code, "")))
        assert answer.abstained, (statement, answer)
        assert "cannot build the program as the grader did" in answer.abstain_reason
        assert ("static void main" if language == "Java" else "no main()") in answer.abstain_reason


@pytest.mark.parametrize(
    ("language", "code"),
    [
        ("Java", "public class Main {\n  public static void main(String[] args) { }\n}\n"),
        ("Java", "class A { static public void main(String... a) { } }"),
        ("C", "int main(void) { return 0 }\n"),  # a whole program with a compile error: compiled, and evidence
        ("C++", "int\nmain ()\n{\n}\n"),
        ("Python 3", "return 1\n"),  # Python is whole as written: a misplaced return is the student's error
    ],
)
def test_whole_programs_are_not_fragments(language, code):
    from cojudge_assets.core.execution.contest_judge import normalize_language
    from cojudge_assets.core.execution.contest_judge.languages import missing_entry_point
    from cojudge_assets.judges.local import PromptParts, SampleExecScorer

    assert missing_entry_point(normalize_language(language), code) == ""
    assert SampleExecScorer.abstention(PromptParts("p", language, "", code, "")) == ""


def test_sample_exec_answers_axioms_score_where_the_request_asks_for_it():
    asked = {"ask_score": True}
    passes = ask("sample-exec", request_for("accepted/two_pointers.c").model_copy(update=asked))[1]
    broken = ask("sample-exec", request_for("compile_error/sweep.c").model_copy(update=asked))[1]
    plain = ask("sample-exec", request_for("accepted/two_pointers.c"))[1]
    assert (passes.score, broken.score, plain.score) == (4, 0, None)
    assert passes.p_accept == plain.p_accept
