"""Participant chat logs, and the participant context sent to judges under each input condition.

Logs live under ``<corpus>/logs/<participant>/`` as Markdown, text or HTML
files. They are read in a fixed deterministic order (file names in natural
order: ``session-2`` before ``session-10``) and split into records (one message
each, where roles are marked; else one record per file). A record concerns a
problem when it names the problem's id or title; records that name none inherit
the last problem named earlier in the same file. A log file that cannot be read
is a quarantine row (stage ``logs``, the field at fault): not UTF-8, binary, a
symlink that dangles or leaves the corpus (never followed), a fifo or device
(never opened), HTML nested past the page depth limit (core/ingest/pages.py).

The three input conditions (seed study IV-A3):

* ``blind``: no participant context;
* ``prefix12k``: the first 12,000 characters of the participant's whole log,
  over all problems, in the fixed order, independent of the attempt;
* ``nonblind``: the log content strictly before the first verbatim appearance of
  the submitted code, restricted to records about this problem, capped at
  12,000 characters (the last 12,000 before the anchor: the part nearest the
  submission). Provenance ``anchored``. When the code is not in the logs but the
  problem is, the problem's records up to the next attempt of the trajectory
  whose code is anchored (all of them if none is), capped the same way:
  ``segmented``. Otherwise no context at all (context about the wrong problem is
  worse than none): ``none``.

Nothing unscrubbed is kept: each record is scrubbed (:mod:`cojudge_assets.core.ingest.scrub`)
as it is read (:func:`read_logs`), so ``prompt_logs`` holds scrubbed text and the
raw file only as its sha256 (the blocking check ``prompt_logs_scrubbed`` verifies
it). Context is cut from these scrubbed records, so the cap holds on the scrubbed
text, and the code is anchored in the scrubbed log (:func:`find_code`).
``blind`` rows have provenance ``none``; ``prefix12k`` rows ``prefix``.
"""

from __future__ import annotations

import hashlib
import os
import re
from dataclasses import dataclass
from pathlib import Path

import polars as pl
from selectolax.lexbor import LexborHTMLParser as HTMLParser

from cojudge_assets.core.ingest.attempts import discover
from cojudge_assets.core.ingest.pages import (
    DEFAULT_LIMITS,
    PageError,
    check_html_shape,
    decode_page,
    escaped_name,
    utf8_name,
)
from cojudge_assets.core.ingest.scrub import harvest_identities, scrub, scrub_secrets

CONTEXT_CAP = 12_000
LOG_FORMATS = {".md": "md", ".markdown": "md", ".txt": "txt", ".log": "txt", ".html": "html", ".htm": "html"}
LOG_SCHEMA = {
    "participant": pl.String,
    "log_file": pl.String,
    "seq": pl.Int64,
    "role": pl.String,
    "text": pl.String,
    "problem_id": pl.String,
    "problem_named": pl.Boolean,
    "log_sha256": pl.String,
}
CONTEXT_BATCH = 150_000  # context rows held as Python values before they become a frame
# the attempts' columns build_contexts reads
CONTEXT_ATTEMPT_COLUMNS = ("attempt_uid", "participant", "problem_id", "turn", "code")
CONTEXT_SCHEMA = {
    "attempt_uid": pl.String,
    "condition": pl.String,
    "context": pl.String,
    "provenance": pl.String,
    "chars": pl.Int64,
    "anchor_offset": pl.Int64,
}

_MD_ROLE = re.compile(
    r"^\*\*(You|User|Me|Assistant|AI|ChatGPT|Claude|Gemini|Copilot|Agent)[^*\n]{0,20}:?\*\*:?\s*$",
    re.MULTILINE | re.IGNORECASE,
)
_TXT_ROLE = re.compile(
    r"^(?:\[[^\]\n]{1,20}\]\s*)?(USER|ASSISTANT|YOU|AI|AGENT|SYSTEM)\s*:\s*$", re.MULTILINE | re.IGNORECASE
)
USER_ROLES = {"you", "user", "me"}


def natural_key(name: str) -> list:
    return [int(t) if t.isdigit() else t.lower() for t in re.split(r"(\d+)", name)]


def _split(text: str, pattern: re.Pattern) -> list[tuple[str, str]]:
    marks = list(pattern.finditer(text))
    if not marks:
        return [("unknown", text.strip())]
    records = []
    if text[: marks[0].start()].strip():
        records.append(("unknown", text[: marks[0].start()].strip()))
    for i, m in enumerate(marks):
        end = marks[i + 1].start() if i + 1 < len(marks) else len(text)
        role = "user" if m.group(1).lower() in USER_ROLES else m.group(1).lower()
        records.append((role, text[m.end() : end].strip()))
    return records


def _html_records(text: str) -> list[tuple[str, str]]:
    tree = HTMLParser(text)
    for node in tree.css("script, style"):
        node.decompose()
    messages = tree.css(".message")
    if not messages:
        return [("unknown", tree.body.text(separator="\n").strip() if tree.body else "")]
    records = []
    for msg in messages:
        classes = (msg.attributes.get("class") or "").split()
        role = next((c for c in classes if c in ("user", "assistant", "agent", "system")), "unknown")
        for node in msg.css(".role"):
            node.decompose()
        parts = []
        for child in msg.iter():
            if child.tag == "pre":
                parts.append(f"```\n{child.text(deep=True)}\n```")
            else:
                parts.append(child.text(deep=True).strip())
        records.append((role, "\n\n".join(p for p in parts if p)))
    return records


def parse_log(text: str, log_format: str) -> list[tuple[str, str]]:
    """(role, text) records of one log file."""
    if log_format == "md":
        return _split(text, _MD_ROLE)
    if log_format == "txt":
        return _split(text, _TXT_ROLE)
    return _html_records(text)


def _mentions(problems: dict[str, str]) -> list[list[tuple[re.Pattern, str]]]:
    """The ways a record can name a problem, strongest first (see :func:`mentioned_problem`)."""
    ids = [(re.compile(rf"(?<![\w-]){re.escape(pid)}(?![\w-])"), pid) for pid in problems]
    by_name: dict[str, list[str]] = {}
    for pid, name in problems.items():
        if name and name != pid and len(name) > 3:
            by_name.setdefault(name.casefold(), []).append(pid)
    names = [
        (re.compile(rf"\b{re.escape(name)}\b", re.IGNORECASE), pids[0])
        for name, pids in by_name.items()
        if len(pids) == 1  # a name two problems share names neither
    ]
    loose = [(re.compile(rf"\b{re.escape(pid)}\b", re.IGNORECASE), pid) for pid in problems]
    return [ids, names, loose]


def mentioned_problem(text: str, mentions: list[list[tuple[re.Pattern, str]]]) -> str | None:
    """The problem a log record names: its id as written (``pairsum``), else a name only one problem has (``Pair
    Sums``), else its id in another case (``PAIRSUM``); within the strongest kind found, the one named first in
    the text. The old rule took the first problem, in the problems' order, whose id or name appeared in any case:
    a record saying "Pair Sums (pairsum)" went to a problem ``crlf`` that shares the name, and one mentioning
    "CRLF line endings" to it as well (issue 34)."""
    for kind in mentions:
        found = [(m.start(), pid) for pattern, pid in kind if (m := pattern.search(text))]
        if found:
            return min(found)[1]
    return None


def read_logs(corpus: Path, problems: dict[str, str]) -> tuple[pl.DataFrame, list[dict]]:
    """The ``prompt_logs`` table, and quarantine rows for log files that cannot be read.

    Nothing raw leaves this function: each record's text is scrubbed
    (:func:`cojudge_assets.core.ingest.scrub.scrub`, with the names and ids harvested
    from all of the participant's records) before it becomes a row. The raw
    file is represented only by its sha256 (``log_sha256``), for provenance. A
    record's problem is found on the raw text, so scrubbing never moves a
    record to another problem.
    """
    root = Path(corpus) / "logs"
    mentions = _mentions(problems)
    rows: list[dict] = []
    rejected: list[dict[str, str | None]] = []
    people = (
        sorted((p for p in root.iterdir() if p.is_dir() and not p.is_symlink()), key=lambda p: natural_key(p.name))
        if root.is_dir()
        else []
    )
    for person in people:
        if not utf8_name(person.name):  # names are data: the folder is quarantined, not read
            rel = escaped_name(person.relative_to(corpus).as_posix())
            rejected.append(
                {
                    "source_path": rel,
                    "stage": "logs",
                    "field": "name",
                    "reason": f"{rel}: folder name is not valid UTF-8 (undecodable bytes shown as \\x escapes); "
                    f"the folder is not read",
                }
            )
            continue
        records: list[dict] = []
        entries: list[str] = []
        for folder, dirs, files in os.walk(person):  # never descends into a symlinked directory
            entries.extend(os.path.join(folder, name) for name in files)
            entries.extend(os.path.join(folder, d) for d in dirs if os.path.islink(os.path.join(folder, d)))
        for path in sorted((Path(e) for e in entries), key=lambda p: natural_key(p.relative_to(person).as_posix())):
            rel = path.relative_to(corpus).as_posix()
            if not utf8_name(rel):
                rel = escaped_name(rel)
                rejected.append(
                    {
                        "source_path": rel,
                        "stage": "logs",
                        "field": "name",
                        "reason": f"{rel}: file name is not valid UTF-8 (undecodable bytes shown as \\x escapes)",
                    }
                )
                continue
            log_format = LOG_FORMATS.get(path.suffix.lower())
            if log_format is None:
                rejected.append(
                    {
                        "source_path": rel,
                        "stage": "logs",
                        "field": "extension",
                        "reason": f"{rel}: extension {path.suffix!r} is not a log format (.md, .txt, .html)",
                    }
                )
                continue
            found = discover(Path(corpus), path)  # symlinks out of the corpus, fifos, oversize: not opened
            if found["problem"]:
                rejected.append(
                    {"source_path": rel, "stage": "logs", "field": found["problem_field"], "reason": found["problem"]}
                )
                continue
            try:
                raw = path.read_bytes()
                text = decode_page(raw, rel)
                if (
                    log_format == "html"
                ):  # the HTML parser's cost grows with depth, tags, attributes (core/ingest/pages.py)
                    try:
                        check_html_shape(text, DEFAULT_LIMITS, rel)
                    except PageError as exc:
                        raise PageError("logs", exc.field, exc.reason) from None
            except PageError as exc:
                rejected.append({"source_path": rel, "stage": "logs", "field": exc.field, "reason": exc.reason})
                continue
            except OSError as exc:
                rejected.append(
                    {
                        "source_path": rel,
                        "stage": "logs",
                        "field": "permissions",
                        "reason": f"{rel}: cannot be read ({type(exc).__name__}: {exc.strerror or exc})",
                    }
                )
                continue
            digest = hashlib.sha256(raw).hexdigest()
            current: str | None = None
            for role, body in parse_log(text, log_format):
                named = mentioned_problem(body, mentions)
                current = named or current
                records.append(
                    {
                        "participant": person.name,
                        "log_file": rel,
                        "seq": len(records),
                        "role": role,
                        "text": body,
                        "problem_id": current,
                        "problem_named": named is not None,
                        "log_sha256": digest,
                    }
                )
        identities = harvest_identities([r["text"] for r in records])
        for record in records:
            record["text"] = scrub(record["text"], identities)
        rows.extend(records)
    return pl.DataFrame(rows, schema=LOG_SCHEMA), rejected


def _normalize(code: str) -> str:
    return "\n".join(line.rstrip() for line in code.replace("\r\n", "\n").strip("\n").split("\n"))


@dataclass
class _Log:
    text: str  # all records, rendered in order
    spans: list[tuple[int, int, str | None]]  # (start, end, problem_id) of each record in text


def _render(records: pl.DataFrame) -> _Log:
    pieces, spans, offset = [], [], 0
    for r in records.iter_rows(named=True):
        chunk = f"{r['role']}: {_normalize(r['text'])}\n\n"
        pieces.append(chunk)
        spans.append((offset, offset + len(chunk), r["problem_id"]))
        offset += len(chunk)
    return _Log("".join(pieces), spans)


_NAME_WORD = r"[A-Z][a-z]+(?:[-'][A-Z][a-z]+)?"
_SCRUBBABLE = re.compile(rf"\b(?P<names>{_NAME_WORD}(?:\s+{_NAME_WORD})*)\b|\b(?P<number>[A-Z]?\d{{5,12}})\b")


def scrubbed_code_pattern(code: str) -> re.Pattern:
    """``code`` as it reads in a scrubbed log: its secrets and e-mails replaced as the scrubber does, and each
    word that may have been a harvested name (a capitalised word) or id (5 to 12 digits) either as written or
    as its placeholder; names next to each other merge into one ``[name]``, as in :func:`scrub`."""
    code = scrub_secrets(code)
    parts, last = [], 0
    for m in _SCRUBBABLE.finditer(code):
        parts.append(re.escape(code[last : m.start()]))
        if m.group("number"):
            parts.append(rf"(?:{re.escape(m.group('number'))}|\[id\])")
        else:
            run, previous = m.group("names"), None
            for word in re.finditer(_NAME_WORD, run):
                alternatives = rf"(?:{re.escape(word.group())}|\[name\])"
                if previous is None:
                    parts.append(alternatives)
                else:  # this word either follows its separator, or was merged into the [name] before it
                    parts.append(rf"(?:{re.escape(run[previous : word.start()])}{alternatives}|(?<=\[name\]))")
                previous = word.end()
        last = m.end()
    parts.append(re.escape(code[last:]))
    return re.compile("".join(parts))


def find_code(log_text: str, code: str) -> int | None:
    """Where ``code`` first appears verbatim in a (scrubbed) log, or None.

    The log was scrubbed when it was read and the attempt's code was not (judges see code as submitted), so
    code the scrubber would have touched (a name or e-mail in a comment, a key in a string) is looked for as
    the scrubber leaves it (:func:`scrubbed_code_pattern`) when it is not found as written.
    """
    if not code:
        return None
    position = log_text.find(code)
    if position >= 0:
        return position
    found = scrubbed_code_pattern(code).search(log_text)
    return found.start() if found else None


def _restricted(log: _Log, problem_id: str, end: int) -> str:
    return "".join(log.text[s : min(e, end)] for s, e, pid in log.spans if pid == problem_id and s < end)


def _cap_tail(text: str) -> str:
    return text[-CONTEXT_CAP:] if len(text) > CONTEXT_CAP else text


def build_contexts(attempts: pl.DataFrame, logs: pl.DataFrame) -> pl.DataFrame:
    """One row per (attempt, condition): the context, its provenance and length.

    ``logs`` is the ``prompt_logs`` table of :func:`read_logs`, already scrubbed; the context is cut from it
    and is not scrubbed again (scrubbing is idempotent, so doing it twice would only cost time).
    """
    # gathered column by column, and into a frame every CONTEXT_BATCH rows: three dicts per attempt would hold
    # about 1 KB more per attempt (3 GB at 10^6), and Python lists of every row ~0.2 GB more
    columns: dict[str, list] = {name: [] for name in CONTEXT_SCHEMA}
    frames: list[pl.DataFrame] = []

    def emit(row: dict) -> None:
        for name, value in row.items():
            columns[name].append(value)

    for participant, group in attempts.sort("participant", "problem_id", "turn").group_by(
        "participant", maintain_order=True
    ):
        if len(columns["attempt_uid"]) >= CONTEXT_BATCH:
            frames.append(pl.DataFrame(columns, schema=CONTEXT_SCHEMA))
            columns = {name: [] for name in CONTEXT_SCHEMA}
        participant = participant[0]
        records = logs.filter(pl.col("participant").eq_missing(participant)).sort("seq")
        log = _render(records)
        prefix = log.text[:CONTEXT_CAP]
        anchors = {}
        for a in group.iter_rows(named=True):
            anchors[a["attempt_uid"]] = find_code(log.text, _normalize(a["code"]))
        for a in group.iter_rows(named=True):
            uid, pid = a["attempt_uid"], a["problem_id"]
            emit(
                {
                    "attempt_uid": uid,
                    "condition": "blind",
                    "context": "",
                    "provenance": "none",
                    "chars": 0,
                    "anchor_offset": None,
                }
            )
            emit(
                {
                    "attempt_uid": uid,
                    "condition": "prefix12k",
                    "context": prefix,
                    "provenance": "prefix" if prefix else "none",
                    "chars": len(prefix),
                    "anchor_offset": None,
                }
            )
            anchor = anchors[uid]
            if anchor is not None:
                text, provenance = _restricted(log, pid, anchor), "anchored"
            elif any(p == pid for _, _, p in log.spans):
                later = [
                    anchor
                    for b in group.iter_rows(named=True)
                    if b["problem_id"] == pid
                    and b["turn"] > a["turn"]
                    and (anchor := anchors[b["attempt_uid"]]) is not None
                ]
                text, provenance = _restricted(log, pid, min(later) if later else len(log.text)), "segmented"
            else:
                text, provenance = "", "none"
            context = _cap_tail(text)
            emit(
                {
                    "attempt_uid": uid,
                    "condition": "nonblind",
                    "context": context,
                    "provenance": provenance,
                    "chars": len(context),
                    "anchor_offset": anchor,
                }
            )
    frames.append(pl.DataFrame(columns, schema=CONTEXT_SCHEMA))
    return pl.concat(frames, rechunk=True)
