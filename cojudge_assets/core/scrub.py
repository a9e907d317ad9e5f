"""Removing personal data and secrets from participant context before it is stored or sent.

What is removed, and how it is found:

* e-mail addresses (pattern) -> ``[email]``;
* API keys and tokens: OpenAI/Anthropic ``sk-...``, Google ``AIza...``, GitHub
  ``ghp_...``/``github_pat_...``, Slack ``xox?-...``, AWS ``AKIA...``, and any
  ``*_KEY``/``*TOKEN``/``*SECRET``/``password`` assignment -> ``[secret]``;
* student and other id numbers introduced by a cue ("student no.", "matric",
  "id") -> ``[id]``, and the same numbers wherever else they appear;
* people's names introduced by a cue ("I'm ...", "my name is ...", "Name: ...",
  "submit as ...") -> ``[name]``, and each part of those names wherever else it
  appears as a word. Names are harvested from all of a participant's logs
  first (:func:`harvest_identities`), so a name mentioned once in an
  introduction is removed from every later message too.

Pattern-based scrubbing cannot promise to find a name that is never introduced;
the report states the method, and the tests cover what it does find.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

EMAIL = re.compile(r"[A-Za-z0-9._%+-]+@[A-Za-z0-9.-]+\.[A-Za-z]{2,}")
SECRETS = [
    re.compile(r"\bsk-(?:proj-|ant-|live-|test-)?[A-Za-z0-9_\-]{16,}"),
    re.compile(r"\bAIza[0-9A-Za-z_\-]{30,}"),
    re.compile(r"\b(?:ghp|gho|ghu|ghs)_[A-Za-z0-9]{20,}|\bgithub_pat_[A-Za-z0-9_]{20,}"),
    re.compile(r"\bxox[abpr]-[A-Za-z0-9\-]{10,}"),
    re.compile(r"\bAKIA[0-9A-Z]{16}\b"),
    re.compile(r"(?i)\b([A-Z0-9_]*(?:API_?KEY|TOKEN|SECRET|PASSWORD|PASSWD))\s*[=:]\s*['\"]?[^\s'\"]{6,}"),
]
ID_CUE = re.compile(r"(?i)\b(?:student\s*(?:no\.?|number|id|#)|matric(?:ulation)?\s*(?:no\.?|number)?|"
                    r"\bid\b\s*(?:no\.?)?)\s*[:#]?\s*([A-Z]?\d{5,12})")
NAME_CUE = re.compile(r"(?:\bI'm|\bI am|\b[Mm]y name is|\bName:|\bsubmit as)\s+"
                      r"([A-Z][a-z]+(?:[-'][A-Z][a-z]+)?(?:\s+[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?){1,2})")
NOT_NAMES = {"In", "The", "Working", "Trying", "Using", "Stuck", "Done", "Back", "Here", "Not", "Still", "Going"}


@dataclass
class Identities:
    names: set[str] = field(default_factory=set)
    ids: set[str] = field(default_factory=set)


def harvest_identities(texts: list[str]) -> Identities:
    """Names and id numbers introduced anywhere in ``texts``."""
    found = Identities()
    for text in texts:
        for match in NAME_CUE.finditer(text):
            parts = match.group(1).split()
            if parts[0] not in NOT_NAMES:
                found.names.add(match.group(1))
                found.names.update(p for p in parts if len(p) > 2)
        for match in ID_CUE.finditer(text):
            found.ids.add(match.group(1))
    return found


def scrub(text: str, identities: Identities | None = None) -> str:
    """``text`` with personal data and secrets replaced by placeholders.

    >>> scrub("I'm Ada Byron (ada@example.org), key sk-proj-abcdefghijklmnopqrstu")
    "I'm [name] ([email]), key [secret]"
    """
    identities = identities or harvest_identities([text])
    for pattern in SECRETS:
        text = pattern.sub("[secret]", text)
    text = EMAIL.sub("[email]", text)
    for number in sorted(identities.ids, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(number)}\b", "[id]", text)
    for name in sorted(identities.names, key=len, reverse=True):
        text = re.sub(rf"\b{re.escape(name)}\b", "[name]", text)
    text = re.sub(r"\[name\](?:\s+\[name\])+", "[name]", text)
    return text
