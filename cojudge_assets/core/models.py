"""Records that cross a boundary: what a judge is sent, and what a judge must answer.

A judge request carries the problem statement, the language, the source code
and the condition's participant context, and nothing derived from the verdict
(seed study IV-A4). A judge answer is one JSON object with exactly the fields of
:class:`JudgeOutput` (IV-B1); :func:`validate_answer` applies the checks of the
study's bounded-repair rule (IV-B2): (a) the text parses as the schema, (b) every
field is present, (c) ``p_accept`` is in [0, 1], (d) both scores are integers in
1..5. Strict by default; the lenient mode may take the object out of a code
fence or surrounding prose, and says that it did (a repair).
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


class JudgeOutput(BaseModel):
    """The judge's answer: acceptance probability, two 1-5 rubric scores, a short rationale."""

    model_config = ConfigDict(extra="forbid", strict=True)

    p_accept: float = Field(ge=0.0, le=1.0)
    s_algo: int = Field(ge=1, le=5)
    s_robust: int = Field(ge=1, le=5)
    rationale: str


@dataclass
class Validation:
    output: JudgeOutput | None
    error: str  # empty when valid
    repaired: bool  # lenient mode had to cut the object out of surrounding text


_FENCE = re.compile(r"```(?:json)?\s*(\{.*?\})\s*```", re.DOTALL)


def _extract_object(text: str) -> str | None:
    fenced = _FENCE.search(text)
    if fenced:
        return fenced.group(1)
    start, end = text.find("{"), text.rfind("}")
    return text[start: end + 1] if 0 <= start < end else None


def validate_answer(text: str, *, lenient: bool = False) -> Validation:
    """Check one raw answer against the schema (see module docstring).

    >>> validate_answer('{"p_accept": 0.8, "s_algo": 4, "s_robust": 3, "rationale": "ok"}').output.s_algo
    4
    >>> validate_answer('{"p_accept": 1.2, "s_algo": 4, "s_robust": 3, "rationale": "ok"}').error[:28]
    'p_accept: Input should be le'
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
    if isinstance(data.get("p_accept"), int) and not isinstance(data.get("p_accept"), bool):
        data["p_accept"] = float(data["p_accept"])  # 0 and 1 written as integers are valid probabilities
    try:
        return Validation(JudgeOutput.model_validate(data), "", repaired)
    except ValidationError as exc:
        problems = "; ".join(f"{'.'.join(map(str, e['loc'])) or 'answer'}: {e['msg']}" for e in exc.errors())
        return Validation(None, problems, repaired)
