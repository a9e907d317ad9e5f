"""AXIOM's 0-5 score: asked only in graded requests, so no other request changes its hash (docs/judging.md)."""

from __future__ import annotations

import hashlib
import json

import polars as pl

from cojudge_assets.core.judging.models import JudgeRequest, validate_answer
from cojudge_assets.core.judging.prompts import PROMPT_VERSION, SYSTEM, asks_score, canonical_json, render, request_hash
from cojudge_assets.core.judging.requests import build_requests
from cojudge_assets.judges.local import StaticRubricScorer, parse_prompt

STATEMENT = "Given n (1 ≤ n ≤ 100), print n + 1.\n\nExample\nInput:\n1\nOutput:\n2\n"
CODE = '#include <stdio.h>\nint main(void) { int n; scanf("%d", &n); printf("%d\\n", n + 1); return 0; }\n'


def request(**update) -> JudgeRequest:
    return JudgeRequest(problem_id="p", problem_statement=STATEMENT, language="C", source_code=CODE, **update)


def test_a_request_that_does_not_ask_for_the_score_keeps_the_hash_it_had_before_the_field():
    plain = request()
    # the hash as the code computed it before ask_score existed: the five fields, sorted, nothing else
    before = json.dumps(
        {"problem_id": "p", "problem_statement": STATEMENT, "language": "C", "source_code": CODE, "prompt_text": ""},
        sort_keys=True,
        ensure_ascii=False,
    )
    assert canonical_json(plain) == before
    assert request_hash(plain) == hashlib.sha256(f"{PROMPT_VERSION}\n{before}".encode()).hexdigest()
    assert render(plain)[0]["content"] == SYSTEM and not asks_score(render(plain))
    asked = request(ask_score=True)
    assert request_hash(asked) != request_hash(plain)  # a graded request is a new request, answered anew
    assert asks_score(render(asked)) and '"score": <integer 0-5>' in render(asked)[0]["content"]
    assert JudgeRequest(**json.loads(canonical_json(asked))) == asked  # the stored JSON reads back


def test_the_score_is_validated_and_required_only_where_asked():
    answer = {"p_accept": 0.8, "s_algo": 4, "s_robust": 3, "rationale": "ok"}
    assert validate_answer(json.dumps(answer)).output.score is None
    assert validate_answer(json.dumps(answer | {"score": 4})).output.score == 4
    assert "score" in validate_answer(json.dumps(answer | {"score": 6})).error
    assert "score" in validate_answer(json.dumps(answer | {"score": 2.5})).error
    missing = validate_answer(json.dumps(answer), require_score=True)
    assert missing.output is None and "0-5 score" in missing.error
    assert validate_answer(json.dumps(answer | {"score": 0}), require_score=True).output.score == 0


def test_only_graded_requests_ask_for_the_score():
    attempts = pl.DataFrame(
        {"attempt_uid": ["a"], "problem_id": ["p"], "language": ["c"], "language_label": ["C"], "code": [CODE]}
    )
    problems = pl.DataFrame({"problem_id": ["p"], "statement": [STATEMENT]})
    contexts = pl.DataFrame(schema={"attempt_uid": pl.String, "condition": pl.String, "context": pl.String})
    plain = build_requests(attempts, problems, contexts, "blind")
    graded = build_requests(attempts, problems, contexts, "blind", ask_score=True)
    assert plain["request_hash"][0] == request_hash(request())
    assert graded["request_hash"][0] == request_hash(request(ask_score=True))


def test_static_rubric_answers_the_score_only_when_asked():
    scorer = StaticRubricScorer()
    plain = validate_answer(scorer.score(parse_prompt(render(request()))))
    asked = validate_answer(scorer.score(parse_prompt(render(request(ask_score=True)))), require_score=True)
    assert plain.output.score is None
    expected = round(5 * ((asked.output.s_algo + asked.output.s_robust) / 2 - 1) / 4)
    assert asked.output.score == expected and 0 <= expected <= 5
    assert plain.output.p_accept == asked.output.p_accept  # the rest of the answer does not move
