"""Budgets on the tree-sitter work done on one program: a time budget and a bound on the syntax tree's depth.

A seed is untrusted text: an accepted program nested 10,000 blocks deep (20 KB) once kept the mutants step in
tree-sitter for over 9 minutes (issue 34). So every rule that reads a program's tree (the mutation operators, the
rewrites of the control arm, the graded rules) runs inside :func:`program_budget`:

* the tree is at most ``MAX_TREE_DEPTH`` levels deep (:func:`bounded_depth`, one linear walk after the parse).
  The deepest of the 980 real C and Java programs of the shared corpora (ITSP, ConDefects) is 54 levels, the
  99th percentile 25. Walking up from a node (``Node.parent``) costs tree-sitter a descent from the root, so the
  rules that ask a site for its ancestors (in a guard? in a loop? inside a function?) cost sites x depth^2: a
  program of 120 nested ``if`` blocks (depth 246) took 10 s over all rules, one of 60 (depth 126) 2 s. The
  bound keeps that to seconds; REFORMAT, which asked it of every token, now tracks the ancestors on its walk;
* all of it finishes within ``TIME_BUDGET_S`` seconds: every parse runs under tree-sitter's own timeout set to
  what is left, and every walk over the tree (operators._walk) looks at the clock every few hundred nodes.

Past either limit :class:`OverBudget` is raised, naming the rule that was running and the limit; the caller
skips that seed with a row saying so (verify.py, graded/verify.py), and the other seeds go on.
"""

from __future__ import annotations

import time
from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from tree_sitter import Node, Parser, Tree

MAX_TREE_DEPTH = 200  # syntax tree levels; the deepest real program seen has 54 (module docstring)
TIME_BUDGET_S = 20.0  # seconds of tree-sitter work on one seed: every rule together; real seeds take milliseconds
PARSE_RULE = "PARSE"  # the rule named when the seed's own parse is over a limit, before any rule ran

_DEADLINE: ContextVar[tuple[float, float] | None] = ContextVar("tree_budget_deadline", default=None)
_RULE: ContextVar[str] = ContextVar("tree_budget_rule", default=PARSE_RULE)


class OverBudget(Exception):  # noqa: N818 - the name says what happened, as TimeoutError does
    """The tree-sitter work on one program went past a limit; ``rule`` was running, ``limit`` says which."""

    def __init__(self, rule: str, limit: str) -> None:
        super().__init__(f"{rule}: {limit}")
        self.rule = rule
        self.limit = limit

    @property
    def reason(self) -> str:
        return f"seed skipped: {self.rule} went past {self.limit}"


@contextmanager
def program_budget(seconds: float = TIME_BUDGET_S) -> Iterator[None]:
    """All tree-sitter work inside runs against one deadline, ``seconds`` from now."""
    if seconds <= 0:
        raise ValueError(f"a time budget must be positive seconds, got {seconds}")
    token = _DEADLINE.set((time.monotonic() + seconds, seconds))
    rule_token = _RULE.set(PARSE_RULE)
    try:
        yield
    finally:
        _RULE.reset(rule_token)
        _DEADLINE.reset(token)


@contextmanager
def rule(name: str) -> Iterator[None]:
    """The rule named by an :class:`OverBudget` raised inside."""
    token = _RULE.set(name)
    try:
        yield
    finally:
        _RULE.reset(token)


def _limit(deadline: tuple[float, float]) -> str:
    return f"the time budget of {deadline[1]:g} s on one program"


def check() -> None:
    """Raise :class:`OverBudget` if the current program's deadline has passed (no deadline: never)."""
    deadline = _DEADLINE.get()
    if deadline is not None and time.monotonic() > deadline[0]:
        raise OverBudget(_RULE.get(), _limit(deadline))


def parse(parser: Parser, src: bytes) -> Tree:
    """``parser.parse(src)`` under tree-sitter's timeout, set to what is left of the deadline."""
    check()
    deadline = _DEADLINE.get()
    if deadline is None:
        return parser.parse(src)
    parser.timeout_micros = max(1, int((deadline[0] - time.monotonic()) * 1e6))
    try:
        return parser.parse(src)
    except ValueError as error:  # tree-sitter 0.22 raises "Parsing failed" when its timeout expires
        parser.reset()  # a parse stopped half-way would otherwise be resumed by the next one
        raise OverBudget(_RULE.get(), _limit(deadline) + " (in the parse)") from error
    finally:
        parser.timeout_micros = 0


def bounded_depth(root: Node, bound: int = MAX_TREE_DEPTH) -> int:
    """The depth of the tree under ``root`` (the root alone: 0); :class:`OverBudget` past ``bound`` levels."""
    cursor = root.walk()
    depth = deepest = 0
    while True:
        if cursor.goto_first_child():
            depth += 1
            if depth > bound:
                raise OverBudget(_RULE.get(), f"the bound of {bound} syntax tree levels (the tree is deeper)")
            deepest = max(deepest, depth)
            continue
        while not cursor.goto_next_sibling():
            if not cursor.goto_parent():
                return deepest
            depth -= 1
