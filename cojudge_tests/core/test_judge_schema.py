"""The judge answer schema and its validation (a)-(d), strict and lenient; the prompt and request hash."""

from __future__ import annotations

import json

import pytest
from pydantic import ValidationError

from cojudge_assets.core.judging.models import JudgeRequest, validate_answer
from cojudge_assets.core.judging.prompts import PROMPT_VERSION, render, request_hash

GOOD = {"p_accept": 0.75, "s_algo": 4, "s_robust": 3, "rationale": "Sorting plus two pointers, 64-bit count."}


def answer(**changes) -> str:
    data = {**GOOD, **changes}
    return json.dumps({k: v for k, v in data.items() if v is not ...})


def test_valid_answer():
    result = validate_answer(answer())
    assert result.error == "" and not result.repaired
    assert (result.output.p_accept, result.output.s_algo, result.output.s_robust) == (0.75, 4, 3)


@pytest.mark.parametrize(
    "text,needle",
    [
        ('{"p_accept": 0.5, "s_algo": 4', "not a JSON object"),  # (a) truncated
        ("[0.5, 4, 3]", "expected a JSON object"),  # (a) wrong type
        (answer(rationale=...), "rationale: Field required"),  # (b) missing field
        (answer(s_robust=...), "s_robust: Field required"),
        (answer(extra="x"), "extra: Extra inputs are not permitted"),  # schema is closed
        (answer(p_accept=1.5), "p_accept: Input should be less than or equal to 1"),  # (c) range
        (answer(p_accept=-0.1), "p_accept: Input should be greater than or equal to 0"),
        (answer(p_accept="0.7"), "p_accept: Input should be a valid number"),  # strict: no strings
        (answer(s_algo=0), "s_algo: Input should be greater than or equal to 1"),  # (d) integer 1..5
        (answer(s_algo=6), "s_algo: Input should be less than or equal to 5"),
        (answer(s_robust=3.5), "s_robust: Input should be a valid integer"),
        (answer(s_robust=True), "s_robust: Input should be a valid integer"),
    ],
)
def test_invalid_answers_say_why(text, needle):
    result = validate_answer(text)
    assert result.output is None and needle in result.error


def test_integer_probabilities_are_valid():
    assert validate_answer(answer(p_accept=1)).output.p_accept == 1.0
    assert validate_answer(answer(p_accept=0)).output.p_accept == 0.0


def test_fenced_json_is_a_failure_when_strict_and_a_repair_when_lenient():
    fenced = f"Here you go:\n```json\n{answer()}\n```\nHope this helps."
    assert validate_answer(fenced).output is None
    lenient = validate_answer(fenced, lenient=True)
    assert lenient.output is not None and lenient.repaired
    prose = f"My verdict is {answer()} as requested."
    assert validate_answer(prose, lenient=True).repaired
    assert validate_answer("no object here", lenient=True).output is None


REQUEST = JudgeRequest(
    problem_id="pairsum",
    problem_statement="# Pair Sums\n## Constraints\nn <= 3e5",
    language="cpp",
    source_code="int main(){}",
    prompt_text="user: help with pairsum",
)


def test_prompt_delimits_untrusted_content_and_asks_for_json_only():
    system, user = render(REQUEST)
    assert system["role"] == "system" and "exactly one JSON object" in system["content"]
    body = user["content"]
    for block in ("STATEMENT", "CODE", "CONTEXT"):
        assert f"<<<BEGIN {block}>>>" in body and f"<<<END {block}>>>" in body
    assert body.index("int main(){}") > body.index("<<<BEGIN CODE>>>")
    blind = render(REQUEST.model_copy(update={"prompt_text": ""}))[1]["content"]
    assert "<<<BEGIN CONTEXT>>>" not in blind


def test_request_hash_covers_version_and_every_field():
    base = request_hash(REQUEST)
    assert len(base) == 64 and base == request_hash(REQUEST.model_copy())
    for field, value in [
        ("problem_id", "x"),
        ("problem_statement", "y"),
        ("language", "java"),
        ("source_code", "int main(){ }"),
        ("prompt_text", ""),
    ]:
        assert request_hash(REQUEST.model_copy(update={field: value})) != base, field
    assert PROMPT_VERSION


def test_request_has_no_room_for_a_label():
    with pytest.raises(ValidationError, match="verdict"):
        JudgeRequest(**REQUEST.model_dump(), verdict="AC")
