"""The worked examples a problem statement shows: (input, expected output) pairs.

Real statements write them in many ways, and a judge that runs code on them (sample-exec) must read
them all:

* a label line: "Sample Input 1", "Example Input", "Sample Output 1", Aizu's "Output for the Sample
  Input 1" (an *output*), JOI's "入力例 1" / "出力例 1", or a bare "Input" / "Output"; with or without
  a colon, markdown heading marks (``###``) or bold (``**Input:**``);
* followed by its body: a fenced block, an indented block, plain lines up to the next blank line, or
  the rest of the label line after the colon ("Input: 2004");
* in HTML statements, a ``<pre>`` block after an ``<h3>`` label (read with an HTML parser).

Bare "Input"/"Output" labels count only when no label says "sample" or "example": contest statements
title their input-*format* sections "Input" and their examples "Sample Input". Examples that
``core/ingest/problems.py`` appended from the problem package (labels ending "(from the problem package)")
are used instead of any others: they were appended because the text's own could not be read or
disagreed with the package's sample files.

Inputs pair with outputs by number when every label is numbered, else in reading order (each output
answers the input before it).

A bare "Input"/"Output" label is also how a statement titles its *format* section ("Input: A positive
integer n followed by a line containing n positive integers separated by space."), so its body counts only
when it looks like data (:func:`looks_like_prose`): an input body must not read as a sentence about the
input, and an output body must not read as a description of the output (an output may be a sentence: "1.0000
is positive."). A pair with such a body is set aside, never guessed at; when nothing is left the statement
shows no example that can be read with confidence, and sample-exec abstains (judges/local.py).
"""

from __future__ import annotations

import itertools
import re
import textwrap
from dataclasses import dataclass

from selectolax.lexbor import LexborHTMLParser as HTMLParser

PACKAGE_MARK = "(from the problem package)"

_LABEL = re.compile(
    r"(?:(?P<qualifier>(?:sample|example)\s*)?(?P<kind>input|output)|(?P<japanese>入力例|出力例))"
    r"(?P<aizu>\s+for\s+(?:the\s+)?(?:sample|example)\s+input)?"  # "Output for the Sample Input 1": an output
    r"(?:\s*(?P<number>\d+))?"
    r"(?P<package>\s*" + re.escape(PACKAGE_MARK) + r")?"
    r"\s*(?::\s*(?P<inline>.*))?",
    re.IGNORECASE,
)
_MARKUP = re.compile(r"^\s{0,3}#{1,6}\s+|\*\*|__|</?(?:b|strong)>", re.IGNORECASE)  # heading marks, bold
_FENCE = re.compile(r"^(?P<indent> {0,3})(?P<fence>`{3,}|~{3,})")
_HEADING = re.compile(r"^\s{0,3}#{1,6}\s")
_INDENT = ("    ", "\t")  # a markdown indented code block
_HTML_BLOCKS = "h1, h2, h3, h4, h5, h6, p, div, section, li, tr, br, dt, dd"


# Words that describe an input or output format rather than being part of one. A body of a bare label reads as a
# description when it is mostly words and uses these (see looks_like_prose).
FORMAT_WORDS = frozenset(
    """integer integers number numbers float floats real reals digit digits string strings character characters
    word words line lines separated space spaces followed containing contains contain denoting denotes
    representing represents given print prints printed output outputs input inputs each single list array
    elements element value values test tests case cases format specify specifies describing describes size
    length sequence decimal places newline consisting consists where which should must""".split()
)
_WORD = re.compile(r"[A-Za-z][A-Za-z'-]*[.,;:!?]?")


def looks_like_prose(body: str, kind: str) -> bool:
    """Whether the body of a bare "Input"/"Output" label is a sentence about the format, not an example.

    Tokens are whitespace-separated; a *word* is a token of letters (a trailing punctuation mark allowed),
    and a format word one of :data:`FORMAT_WORDS`. Under three words a body is data. An input body is prose
    when it has two format words, or one and words make up at least 60% of its tokens, or it writes TeX
    (``$``) among words. An output body is prose only when it has two format words and words make up at
    least half its tokens: programs print sentences ("1.0000 is positive.", "Leap Year") but not their own
    format.

    >>> looks_like_prose("A positive integer n followed by a line containing n positive integers.", "input")
    True
    >>> looks_like_prose("Space separated sorted list of integers.", "output")
    True
    >>> looks_like_prose("3 4", "input"), looks_like_prose("hello world how are you", "input")
    (False, False)
    >>> looks_like_prose("-12.0000 is negative.", "output"), looks_like_prose("Leap Year", "output")
    (False, False)
    """
    tokens = body.split()
    words = [t.rstrip(".,;:!?").lower() for t in tokens if _WORD.fullmatch(t)]
    if len(words) < 3:
        return False
    share = len(words) / len(tokens)
    hits = sum(w in FORMAT_WORDS for w in words)
    if kind == "output":
        return hits >= 2 and share >= 0.5
    return hits >= 2 or (hits >= 1 and share >= 0.6) or "$" in body


@dataclass
class _Block:
    kind: str  # "input" or "output"
    number: str | None
    qualified: bool  # the label says sample or example (also Aizu's "Output for the Sample Input", JOI's 入力例)
    from_package: bool
    body: str

    @property
    def prose(self) -> bool:
        """A bare label's body that reads as a format description (the statement's own wording for its format)."""
        return not (self.qualified or self.from_package) and looks_like_prose(self.body, self.kind)


@dataclass(frozen=True)
class Reading:
    """What :func:`read_examples` found: the examples, and the labelled bodies set aside as format prose."""

    examples: list[tuple[str, str]]
    set_aside: list[str]


def statement_examples(statement: str) -> list[tuple[str, str]]:
    """(input, output) pairs shown in ``statement``, in order; [] when it shows none that can be read.

    >>> statement_examples("## Sample Input 1\\n```\\n1 2\\n```\\n## Sample Output 1\\n```\\n3\\n```")
    [('1 2\\n', '3\\n')]
    >>> statement_examples("Sample Input 1:\\n3 4\\n\\nSample Output 1:\\n7\\n")
    [('3 4\\n', '7\\n')]
    >>> statement_examples("Sample Input 1\\n\\n    5\\n\\nOutput for the Sample Input 1\\n\\n    25\\n")
    [('5\\n', '25\\n')]
    >>> statement_examples("Example:\\nInput: 2004\\nOutput: Leap Year\\n")
    [('2004\\n', 'Leap Year\\n')]
    >>> statement_examples("<h3>Sample Input</h3><pre>\\n2\\n</pre><h3>Sample Output</h3><pre>\\n4\\n</pre>")
    [('2\\n', '4\\n')]
    >>> statement_examples("## Input\\n    N\\n## Sample Input\\n    7\\n## Sample Output\\n    49\\n")
    [('7\\n', '49\\n')]
    >>> statement_examples("Read two integers and print their sum.")
    []
    """
    return read_examples(statement).examples


def read_examples(statement: str) -> Reading:
    """:func:`statement_examples` with the bare-label bodies it set aside because they read as format prose.

    A pair is kept only when neither body is prose (:attr:`_Block.prose`); pairing happens before, so setting a
    prose input aside never pairs its output with an earlier input.

    >>> r = read_examples("Input: A positive integer n followed by n integers separated by space.\\n"
    ...                   "Output: Space separated sorted list of integers.\\n")
    >>> r.examples, len(r.set_aside)
    ([], 2)
    """
    if re.search(r"<pre\b", statement, re.IGNORECASE):
        statement = _html_as_text(statement)
    blocks = _labelled_blocks(statement.splitlines())
    if any(b.from_package for b in blocks):
        blocks = [b for b in blocks if b.from_package]
    elif any(b.qualified for b in blocks):
        blocks = [b for b in blocks if b.qualified]
    kept = [(given, expected) for given, expected in _pairs(blocks) if not (given.prose or expected.prose)]
    return Reading(
        examples=[(given.body, expected.body) for given, expected in kept],
        set_aside=[b.body for b in blocks if b.prose],
    )


def same_examples(shown: list[tuple[str, str]], samples: list[tuple[str, str]]) -> bool:
    """Whether two lists of (input, output) pairs are the same, pair by pair, token by token (whitespace
    is not compared: "1  2\\n" and "1 2" agree).

    >>> same_examples([("1 2\\n", "3\\n")], [("1  2", "3")])
    True
    >>> same_examples([("1 2\\n", "3\\n")], [("1 2", "4")])
    False
    """
    return len(shown) == len(samples) and all(
        given.split() == other_given.split() and expected.split() == other_expected.split()
        for (given, expected), (other_given, other_expected) in zip(shown, samples)
    )


def _html_as_text(statement: str) -> str:
    """The statement's text with each ``<pre>`` as a fenced block and block elements on lines of their own."""
    tree = HTMLParser(statement)
    for pre in tree.css("pre"):
        pre.replace_with("\n```\n" + pre.text(deep=True).strip("\n") + "\n```\n")
    for block in tree.css(_HTML_BLOCKS):
        block.insert_before("\n")
        block.insert_after("\n")
    return tree.body.text(deep=True) if tree.body else tree.text(deep=True)


def _labelled_blocks(lines: list[str]) -> list[_Block]:
    blocks = []
    for i, line in enumerate(lines):
        label = _label(line)
        if not label:
            continue
        inline = (label["inline"] or "").strip()
        body = inline + "\n" if inline else _body_after(lines, i + 1)
        if body is None:
            continue
        blocks.append(
            _Block(
                kind=_kind(label),
                number=label["number"],
                qualified=bool(label["qualifier"] or label["aizu"] or label["japanese"]),
                from_package=bool(label["package"]),
                body=body,
            )
        )
    return blocks


def _label(line: str) -> re.Match | None:
    return _LABEL.fullmatch(_MARKUP.sub("", line).strip())


def _kind(label: re.Match) -> str:
    if label["japanese"]:
        return "input" if label["japanese"] == "入力例" else "output"
    return "output" if label["aizu"] else label["kind"].lower()


def _body_after(lines: list[str], start: int) -> str | None:
    """The example body that starts at the first non-blank line from ``start``: a fenced block, an indented
    block, or plain lines; None when a label or a heading comes first."""
    rest = list(itertools.dropwhile(lambda line: not line.strip(), lines[start:]))
    if not rest or _HEADING.match(rest[0]) or _label(rest[0]):
        return None
    if fence := _FENCE.match(rest[0]):
        return _fenced(rest[1:], fence["fence"], fence["indent"])
    if rest[0].startswith(_INDENT):
        return _indented(rest)
    return _plain(rest)


def _fenced(lines: list[str], fence: str, indent: str) -> str:
    """The lines up to the closing fence, without the opening fence's indentation (CommonMark)."""
    body = itertools.takewhile(lambda line: not line.strip().startswith(fence), lines)
    return "".join(line.removeprefix(indent) + "\n" for line in body)


def _indented(lines: list[str]) -> str:
    """The indented lines (and blank lines between them), dedented."""
    body = itertools.takewhile(lambda line: not line.strip() or line.startswith(_INDENT), lines)
    return textwrap.dedent("\n".join(body).expandtabs(4)).strip("\n") + "\n"


def _plain(lines: list[str]) -> str:
    """The lines up to a blank line, a fence, a heading or the next label."""
    body = itertools.takewhile(
        lambda line: line.strip() and not (_FENCE.match(line) or _HEADING.match(line) or _label(line)), lines
    )
    return "".join(line + "\n" for line in body)


def _pairs(blocks: list[_Block]) -> list[tuple[_Block, _Block]]:
    """Inputs paired with outputs: by number when every label has one, else each output with the input
    before it (an input with no output is dropped)."""
    if blocks and all(b.number for b in blocks):
        inputs: dict[str, _Block] = {}
        outputs: dict[str, _Block] = {}
        for b in blocks:
            assert b.number  # every block is numbered (checked above)
            (inputs if b.kind == "input" else outputs).setdefault(b.number, b)
        return [(given, outputs[number]) for number, given in inputs.items() if number in outputs]
    pairs = []
    given = None
    for b in blocks:
        if b.kind == "input":
            given = b
        elif given is not None:
            pairs.append((given, b))
            given = None
    return pairs
