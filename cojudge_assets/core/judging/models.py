"""Records that cross a boundary: what a judge is sent, and what a judge must answer.

A judge request carries the problem statement, the language, the source code
and the condition's participant context, and nothing derived from the verdict
(seed study IV-A4). A judge answer is one JSON object with exactly the fields of
:class:`JudgeOutput` (IV-B1); :func:`validate_answer` applies the checks of the
study's bounded-repair rule (IV-B2): (a) the text parses as the schema, (b) every
field is present, (c) ``p_accept`` is in [0, 1], (d) both scores are integers in
1..5. Strict by default; the lenient mode may take the object out of a code
fence or surrounding prose, and says that it did (a repair).

Abstention. A judge with nothing to go on for an item (no examples to run, no
statement to read) answers, instead of a constant, exactly one JSON object with
one field: ``{"abstain": "<reason in words a reader understands>"}``
(:class:`JudgeAbstention`). :func:`validate_answer` recognises it only when the
whole answer text is that object: the one key ``abstain``, its value a non-empty
string, nothing else around it (no code fence, no prose, no lenient repair).
Any other object carrying an ``abstain`` key (with scores beside it, a boolean
or empty reason, or cut out of surrounding text) is an invalid answer and is
re-asked like any other, so a hosted model cannot abstain by accident; the
judge prompt does not offer abstention, the local judges use it. An abstention
is a final answer: stored with its reason, never re-sent, never scored.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass

from pydantic import BaseModel, ConfigDict, Field, ValidationError


class JudgeRequest(BaseModel):
    """The canonical, model-agnostic request for one (attempt, condition)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    problem_id: str
    problem_statement: str
    language: str
    source_code: str
    prompt_text: str = ""  # the condition's participant context; empty under blind
    # ask also for AXIOM's 0-5 score (graded programs only); left out of the canonical JSON when False, so every
    # request made before the field existed keeps its hash and its cached answer (core/judging/prompts.py)
    ask_score: bool = False


class JudgeOutput(BaseModel):
    """The judge's answer: acceptance probability, two 1-5 rubric scores, a short rationale."""

    model_config = ConfigDict(extra="forbid", strict=True)

    p_accept: float = Field(ge=0.0, le=1.0)
    s_algo: int = Field(ge=1, le=5)
    s_robust: int = Field(ge=1, le=5)
    rationale: str
    # AXIOM's 0-5 score (5 correct and clean ... 0 unusable), answered where the request asked for it
    score: int | None = Field(default=None, ge=0, le=5)


class JudgeAbstention(BaseModel):
    """The judge declines to answer for this item, and says why (see module docstring)."""

    model_config = ConfigDict(extra="forbid", strict=True)

    abstain: str = Field(min_length=1)


ABSTAIN_KEY = "abstain"


@dataclass
class Validation:
    output: JudgeOutput | None
    error: str  # empty when valid or abstained
    repaired: bool  # lenient mode had to cut the object out of surrounding text
    abstain_reason: str = ""  # the judge abstained, with this reason (output is None, error empty)

    @property
    def abstained(self) -> bool:
        return bool(self.abstain_reason)


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def _extract_object(text: str) -> str | None:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start : end + 1] if 0 <= start < end else None


def validate_answer(text: str, *, lenient: bool = False, require_score: bool = False) -> Validation:
    """Check one raw answer against the schema (see module docstring); ``require_score``: the request asked for the
    0-5 ``score`` (an answer without it is invalid and asked again).

    >>> validate_answer('{"p_accept": 0.8, "s_algo": 4, "s_robust": 3, "rationale": "ok"}').output.s_algo
    4
    >>> validate_answer('{"p_accept": 1.2, "s_algo": 4, "s_robust": 3, "rationale": "ok"}').error[:28]
    'p_accept: Input should be le'
    >>> validate_answer('{"abstain": "the statement has no examples to run"}').abstain_reason
    'the statement has no examples to run'
    >>> validate_answer('{"abstain": "no examples", "p_accept": 0.5}').error
    "an abstention is exactly {'abstain': '<reason>'}; got the fields abstain, p_accept"
    """
    candidate, repaired = text.strip(), False
    try:
        data = json.loads(candidate)
    except json.JSONDecodeError as exc:
        extracted = _extract_object(candidate) if lenient else None
        if extracted is None:
            return Validation(None, f"not a JSON object: {exc.msg} at position {exc.pos}", False)
        try:
            data, repaired = json.loads(extracted), True
        except json.JSONDecodeError as inner:
            return Validation(None, f"not a JSON object: {inner.msg} at position {inner.pos}", False)
    if not isinstance(data, dict):
        return Validation(None, f"expected a JSON object, got {type(data).__name__}", repaired)
    if ABSTAIN_KEY in data:
        return _abstention(data, repaired)
    if isinstance(data.get("p_accept"), int) and not isinstance(data.get("p_accept"), bool):
        data["p_accept"] = float(data["p_accept"])  # 0 and 1 written as integers are valid probabilities
    if require_score and data.get("score") is None:
        return Validation(None, "score: the request asked for AXIOM's 0-5 score (an integer 0-5)", repaired)
    try:
        return Validation(JudgeOutput.model_validate(data), "", repaired)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors())
        return Validation(None, problems, repaired)


def _abstention(data: dict, repaired: bool) -> Validation:
    """An object with an ``abstain`` key: an abstention only in its exact shape, else an invalid answer."""
    if set(data) != {ABSTAIN_KEY}:
        return Validation(
            None,
            f"an abstention is exactly {{'abstain': '<reason>'}}; got the fields {', '.join(sorted(map(str, data)))}",
            repaired,
        )
    if repaired:
        return Validation(None, "an abstention must be the whole answer, not cut out of surrounding text", repaired)
    try:
        reason = JudgeAbstention.model_validate(data).abstain.strip()
    except ValidationError as exc:
        return Validation(None, f"abstain: {exc.errors()[0]['msg']} (expected a non-empty reason)", repaired)
    if not reason:
        return Validation(None, "abstain: the reason is blank (expected a non-empty reason)", repaired)
    return Validation(None, "", False, abstain_reason=reason)
