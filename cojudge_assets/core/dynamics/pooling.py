"""Which judges a pooled table leaves out: one rule for the panel, the agreement tables and the rank consensus.

A table that pools judges (the panel score, Fleiss' kappa, a pair's kappa and rho, the rank consensus q)
is computed on some subset of the attempts: one condition, the attempts every member answered, the attempts
both judges of a pair answered. On that subset a judge is left out when

* it answered nothing there (``no_answers``), or
* its answers there are all one value (``constant``): it cannot order the attempts or split them, so its
  percentile ranks are one tie (they pull every panel score towards the middle) and its median cut puts every
  attempt on one side (kappa is 0 or undefined whatever the others say).

An abstention is not an answer: a missing or NaN ``p_accept`` is dropped before the rule is applied. A judge is
judged on each subset separately: constant under one condition, it is still a member under another where its
answers vary. Every table that leaves a judge out says so (measurement: a row of metric ``excluded_constant`` or
``excluded_no_answers`` with a ``note``; the rank consensus: its ``left_out`` column).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

CONSTANT = "constant"
NO_ANSWERS = "no_answers"
METRIC = {CONSTANT: "excluded_constant", NO_ANSWERS: "excluded_no_answers"}


@dataclass(frozen=True)
class LeftOut:
    """A judge left out of a pooled table on a subset, and why."""

    judge: str
    reason: str  # CONSTANT or NO_ANSWERS
    value: float  # its one value (nan when it answered nothing)
    answers: int  # its answers on the subset

    @property
    def metric(self) -> str:
        return METRIC[self.reason]

    def why(self, subset: str) -> str:
        """Why, for a reader: ``subset`` names the attempts, e.g. "under blind".

        >>> LeftOut("j", CONSTANT, 0.5, 40).why("under blind")
        '40 answers under blind, all 0.5'
        """
        if self.reason == NO_ANSWERS:
            return f"no answers {subset}"
        return f"{self.answers} answers {subset}, all {self.value:g}"

    def note(self, subset: str) -> str:
        """Who is left out and why, in one line: "j left out: 40 answers under blind, all 0.5"."""
        return f"{self.judge} left out: {self.why(subset)}"


def answered(p) -> np.ndarray:
    """The answers among ``p``: a missing or NaN p_accept is an abstention, not an answer.

    >>> answered([0.2, None, float("nan"), 0.7]).tolist()
    [0.2, 0.7]
    """
    values = np.asarray(p, dtype=float)  # None becomes NaN
    if values.ndim != 1:
        raise ValueError(f"p must be a 1-D array of p_accept values, got shape {values.shape}")
    return values[~np.isnan(values)]


def left_out(judge: str, p) -> LeftOut | None:
    """Why ``judge`` is left out of a table pooled over the attempts of ``p`` (its p_accept there), or None.

    >>> left_out("j", np.array([0.5, np.nan, 0.5])).reason, left_out("j", [None]).reason
    ('constant', 'no_answers')
    >>> left_out("j", np.array([0.5, 0.6])) is None
    True
    """
    values = answered(p)
    if not len(values):
        return LeftOut(judge, NO_ANSWERS, float("nan"), 0)
    if (values == values[0]).all():
        return LeftOut(judge, CONSTANT, float(values[0]), len(values))
    return None


def split(answers: dict[str, np.ndarray]) -> tuple[list[str], list[LeftOut]]:
    """The judges that take part in a table pooled over one subset, and those left out; both in name order.

    ``answers[judge]`` is the judge's p_accept on the subset (abstentions as NaN or missing).

    >>> members, out = split({"b": np.array([0.1, 0.9]), "a": np.array([0.5, 0.5]), "c": np.array([])})
    >>> members, [(x.judge, x.reason) for x in out]
    (['b'], [('a', 'constant'), ('c', 'no_answers')])
    """
    members, out = [], []
    for judge in sorted(answers):
        reason = left_out(judge, answers[judge])
        if reason is None:
            members.append(judge)
        else:
            out.append(reason)
    return members, out
