"""The local judges answer through litellm exactly like a hosted model, and their answers validate."""

from __future__ import annotations


import pytest


import litellm

from cojudge_assets.core.kattis import read_problem
from cojudge_assets.core.models import JudgeRequest, validate_answer
from cojudge_assets.core.prompts import render
from cojudge_assets.judges.local import (
    _loop_depth,
    _max_bound,
    parse_prompt,
    register_local_judges,
    statement_examples,
)
from cojudge_tests.conftest import REPO

PAIRSUM = read_problem(REPO / "data" / "demo" / "problems" / "pairsum")


def request_for(path: str) -> JudgeRequest:
    file = PAIRSUM.root / "submissions" / path
    language = {"c": "C", "cpp": "C++17", "java": "Java 17", "py": "Python 3"}[file.suffix[1:]]
    return JudgeRequest(problem_id="pairsum", problem_statement=PAIRSUM.statement, language=language,
                        source_code=file.read_text())


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
        "pairsum", "Python 3", request.problem_statement, request.source_code, "user: hi")


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
        return await litellm.acompletion(model="cojudge/static-rubric", messages=render(request_for(
            "accepted/reference.py")))

    response = asyncio.run(go())
    assert validate_answer(response.choices[0].message.content).output is not None


def test_static_rubric_notices_a_missing_special_answer():
    from cojudge_assets.judges.local import PromptParts, StaticRubricScorer

    statement = "Print the distance, or print -1 if town n cannot be reached. 1 <= n <= 100"
    with_it = PromptParts("p", "C", statement, "int main(){ long long d = -1; /* ... */ return 0; }", "")
    without = PromptParts("p", "C", statement, "int main(){ long long d = 0; /* ...... */ return 0; }", "")
    scorer = StaticRubricScorer()
    assert validate_answer(scorer.score(with_it)).output.p_accept > validate_answer(scorer.score(without)).output.p_accept
