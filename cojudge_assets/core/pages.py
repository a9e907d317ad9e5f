"""Reading saved submission pages (.html/.htm, .md, .txt) into attempts.

The data verification of the seed study (IV-D) is the rule here:

* the verdict comes only from the named **Result** field, never from scanning
  the page text (submitted code is page text too: V3);
* the timestamp comes only from the named **Submit** field; the header clock
  (when the page was saved) is kept separately as ``page_saved_at`` (V1);
* for HTML, scripts and styles are removed first; the code is the longest
  ``<pre>`` block, with ``<code>`` as the fallback; in Markdown the longest
  fenced block; in text files the block between ``BEGIN SOURCE`` and
  ``END SOURCE`` markers (else the longest indented or fenced block);
* fields are read from structure: HTML ``<th>/<td>`` and ``<dt>/<dd>`` pairs,
  Markdown table rows ``| Field | Value |``, and ``Field: value`` lines outside
  the code block.

A page that cannot be used raises :class:`PageError` with the stage, the field
and what was expected; the caller quarantines it.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime

from selectolax.lexbor import LexborHTMLParser as HTMLParser

PAGE_FORMATS = {".html": "html", ".htm": "html", ".md": "md", ".txt": "txt"}

# Result strings as judge systems print them; a contest can add its own (contest.yaml: result_strings)
DEFAULT_RESULT_VOCABULARY = {
    "accepted": "AC", "ac": "AC", "correct": "AC", "ok": "AC", "passed": "AC",
    "wrong answer": "WA", "wa": "WA", "wrong": "WA", "presentation error": "WA", "output limit exceeded": "WA",
    "time limit exceeded": "TLE", "tle": "TLE", "time limit": "TLE",
    "runtime error": "RE", "run time error": "RE", "re": "RE", "memory limit exceeded": "RE",
    "compilation error": "CE", "compile error": "CE", "ce": "CE", "compiler error": "CE",
}
FIELD_NAMES = ("submission", "user", "problem", "language", "submit", "result")
_FIELD_ALIASES = {"submitted": "submit", "submit time": "submit", "submitted at": "submit", "verdict": None,
                  "status": None, "lang": "language", "task": "problem"}
_CLOCK = re.compile(r"(\d{4}-\d{2}-\d{2})[ T](\d{2}:\d{2}(?::\d{2})?)")
_SAVED = re.compile(r"saved\W{0,3}(?:at\W{0,3})?(\d{4}-\d{2}-\d{2}[ T]\d{2}:\d{2}(?::\d{2})?)", re.IGNORECASE)


class PageError(ValueError):
    """A page that cannot become an attempt: stage, field, expectation."""

    def __init__(self, stage: str, field: str | None, reason: str):
        super().__init__(reason)
        self.stage, self.field, self.reason = stage, field, reason


@dataclass
class ParsedPage:
    fields: dict[str, str]  # lower-case field name -> raw value
    code: str
    code_source: str  # "pre", "code", "fence", "markers"
    page_saved_at: datetime | None


def decode_page(raw: bytes, path: str) -> str:
    """UTF-8 text of a raw file (a BOM is dropped); empty or undecodable files raise PageError."""
    if not raw.strip():
        raise PageError("decode", None, f"{path}: empty file")
    try:
        return raw.decode("utf-8-sig")
    except UnicodeDecodeError as exc:
        raise PageError("decode", None, f"{path}: not valid UTF-8 (byte {exc.start}): expected a UTF-8 text page")


def parse_clock(value: str) -> datetime | None:
    match = _CLOCK.search(value)
    if not match:
        return None
    text = f"{match.group(1)} {match.group(2)}"
    for fmt in ("%Y-%m-%d %H:%M:%S", "%Y-%m-%d %H:%M"):
        try:
            return datetime.strptime(text, fmt)
        except ValueError:
            continue
    return None


def _canonical_field(label: str) -> str | None:
    key = re.sub(r"[\s:*_]+", " ", label).strip().lower()
    if key in FIELD_NAMES:
        return key
    return _FIELD_ALIASES.get(key)


def _put(fields: dict[str, str], label: str, value: str) -> None:
    name = _canonical_field(label)
    if name is not None and name not in fields:
        fields[name] = value.strip()


def _parse_html(text: str) -> ParsedPage:
    tree = HTMLParser(text)
    for node in tree.css("script, style, noscript, template"):
        node.decompose()
    fields: dict[str, str] = {}
    for row in tree.css("tr"):
        cells = row.css("th, td")
        if len(cells) >= 2:
            _put(fields, cells[0].text(), cells[1].text())
    for dt in tree.css("dt"):
        dd = dt.next
        while dd is not None and dd.tag != "dd":
            dd = dd.next
        if dd is not None:
            _put(fields, dt.text(), dd.text())
    blocks = [(n.text(deep=True), "pre") for n in tree.css("pre")]
    if not blocks:
        blocks = [(n.text(deep=True), "code") for n in tree.css("code")]
    body = tree.body.text(separator="\n") if tree.body else ""
    saved = _SAVED.search(body)
    if not fields:  # a page written as "Field: value" lines
        code_texts = {b[0] for b in blocks}
        for line in body.splitlines():
            if line not in code_texts:
                _line_field(fields, line)
    code, source = max(blocks, key=lambda b: len(b[0])) if blocks else ("", "")
    return ParsedPage(fields, code, source, parse_clock(saved.group(1)) if saved else None)


def _line_field(fields: dict[str, str], line: str) -> None:
    match = re.match(r"^\s*\**([A-Za-z][A-Za-z ]{1,20}?)\**\s*:\s*\**(.+?)\**\s*$", line)
    if match:
        _put(fields, match.group(1), match.group(2))


_FENCE = re.compile(r"^(```+|~~~+)[^\n]*\n(.*?)^\1\s*$", re.MULTILINE | re.DOTALL)


def _parse_md(text: str) -> ParsedPage:
    blocks = [m.group(2) for m in _FENCE.finditer(text)]
    outside = _FENCE.sub("", text)
    fields: dict[str, str] = {}
    for line in outside.splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")] if line.strip().startswith("|") else []
        if len(cells) >= 2 and not set(cells[0]) <= set("-: "):
            _put(fields, cells[0], cells[1])
        else:
            _line_field(fields, line)
    saved = _SAVED.search(outside)
    code = max(blocks, key=len) if blocks else ""
    return ParsedPage(fields, code, "fence" if blocks else "", parse_clock(saved.group(1)) if saved else None)


_MARKERS = re.compile(r"^-+ ?BEGIN SOURCE ?-+\s*\n(.*?)^-+ ?END SOURCE ?-+\s*$", re.MULTILINE | re.DOTALL)


def _parse_txt(text: str) -> ParsedPage:
    match = _MARKERS.search(text)
    if match:
        code, source, outside = match.group(1), "markers", text[: match.start()] + text[match.end():]
    else:
        fenced = [m.group(2) for m in _FENCE.finditer(text)]
        code, source = (max(fenced, key=len), "fence") if fenced else ("", "")
        outside = _FENCE.sub("", text)
    fields: dict[str, str] = {}
    for line in outside.splitlines():
        _line_field(fields, line)
    saved = _SAVED.search(outside)
    return ParsedPage(fields, code, source, parse_clock(saved.group(1)) if saved else None)


def parse_page(text: str, page_format: str) -> ParsedPage:
    """Fields, code and header clock of one decoded page."""
    if page_format == "html":
        return _parse_html(text)
    if page_format == "md":
        return _parse_md(text)
    if page_format == "txt":
        return _parse_txt(text)
    raise PageError("parse", None, f"unknown page format {page_format!r} (expected html, md or txt)")


def map_verdict(result: str, vocabulary: dict[str, str]) -> str | None:
    """The verdict code for a Result string (case and spacing insensitive), or None if unknown."""
    return vocabulary.get(re.sub(r"\s+", " ", result).strip().lower())


def naive_verdict_scan(visible_text: str) -> str:
    """How a whole-page text scan reads the verdict (the V3 trap): the first verdict word found, in
    the order accepted, wrong answer, time limit, runtime error, compil(ation error).

    Kept only to show, in tests and reports, why the named Result field is read instead: the
    submitted code is page text too, and a variable named ``accepted`` is enough to fool it.
    """
    lowered = visible_text.lower()
    for word, code in (("accepted", "AC"), ("wrong answer", "WA"), ("time limit", "TLE"),
                       ("runtime error", "RE"), ("compil", "CE")):
        if word in lowered:
            return code
    return ""


def visible_text(text: str, page_format: str) -> str:
    """The page as a reader sees it (HTML without scripts and styles)."""
    if page_format != "html":
        return text
    tree = HTMLParser(text)
    for node in tree.css("script, style, noscript, template"):
        node.decompose()
    return tree.body.text(separator="\n") if tree.body else ""
