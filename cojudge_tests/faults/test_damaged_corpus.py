"""Damaged contest corpora: every kind of bad input is quarantined with its file and field, nothing crashes,
and raw paths = attempts + quarantine.

Each case writes a tiny ``pages`` corpus in ``tmp_path`` (two problem packages, ``contest.yaml`` with a
window, one good page, a chat log), damages it in one way, and ingests it with the core functions the
ingest assets call (``list_pages``, ``read_problem_table``, ``read_corpus``).
"""

from __future__ import annotations

import os
import random
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.ingest.attempts import list_pages, reconcile
from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table

CODE = (
    '#include <cstdio>\nint main() {\n    long long a, b;\n    std::scanf("%lld %lld", &a, &b);\n'
    '    std::printf("%lld\\n", a + b);\n}\n'
)
GOOD = "pages/u01/pairsum-01.html"
WINDOW = "window:\n  start: '2026-03-14 13:45:00'\n  end: '2026-03-14 17:45:00'\n"


def html_page(
    *,
    result="Accepted",
    submit="2026-03-14 14:03:22",
    problem="pairsum - Pair Sums",
    language="C++17 (GCC 12)",
    code=CODE,
    notes="15 test(s) run",
    extra_rows="",
    body_extra="",
) -> str:
    esc = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return (
        f"<!DOCTYPE html><html><head><title>Submission</title></head><body>"
        f'<div class="page-header">Page saved 2026-03-14 18:01:02</div>'
        f"<table><tr><th>Problem</th><td>{problem}</td></tr><tr><th>Language</th><td>{language}</td></tr>"
        f"<tr><th>Submit</th><td>{submit}</td></tr><tr><th>Result</th><td>{result}</td></tr>{extra_rows}</table>"
        f'<pre class="judge-notes">{notes}</pre><pre class="source"><code>{esc}</code></pre>{body_extra}'
        f"</body></html>\n"
    )


def md_page(*, code=CODE, fence_lang="cpp", notes_block="") -> str:
    return (
        "| Field | Value |\n|---|---|\n| Problem | pairsum - Pair Sums |\n| Language | C++17 (GCC 12) |\n"
        f"| Submit | 2026-03-14 14:20:00 |\n| Result | Wrong Answer |\n\n{notes_block}```{fence_lang}\n{code}```\n"
    )


def txt_page(*, code=CODE) -> str:
    return (
        "Problem: pairsum - Pair Sums\nLanguage: C++17 (GCC 12)\nSubmit: 2026-03-14 14:30:00\n"
        f"Result: Wrong Answer\n\n----- BEGIN SOURCE -----\n{code}----- END SOURCE -----\n"
    )


def write_package(
    root: Path,
    pid: str,
    *,
    yaml_text: str | None = None,
    statement: bool = True,
    tests: dict[str, tuple[str, str | None]] | None = None,
) -> None:
    pkg = root / "problems" / pid
    pkg.mkdir(parents=True, exist_ok=True)
    (pkg / "problem.yaml").write_text(
        yaml_text if yaml_text is not None else f"name: {pid.title()}\nlimits:\n  time_limit_s: 1.0\n  memory_mb: 256\n"
    )
    if statement:
        (pkg / "problem_statement").mkdir(exist_ok=True)
        (pkg / "problem_statement" / "problem.en.md").write_text(f"# {pid}\n\nRead two numbers, print a sum.\n")
    for key, (given, answer) in (tests or {"sample/1": ("1 2\n", "3\n"), "secret/1": ("5 6\n", "11\n")}).items():
        group, stem = key.split("/")
        (pkg / "data" / group).mkdir(parents=True, exist_ok=True)
        (pkg / "data" / group / f"{stem}.in").write_text(given)
        if answer is not None:
            (pkg / "data" / group / f"{stem}.ans").write_text(answer)


def base_corpus(root: Path) -> Path:
    corpus = root / "corpus"
    write_package(corpus, "pairsum")
    write_package(corpus, "admissions")
    (corpus / "contest.yaml").write_text(WINDOW)
    (corpus / "pages" / "u01").mkdir(parents=True)
    (corpus / GOOD).write_text(html_page())
    (corpus / "logs" / "u01").mkdir(parents=True)
    (corpus / "logs" / "u01" / "session-1.md").write_text("**You:**\nHow do I add two numbers for pairsum?\n")
    return corpus


@dataclass
class Quarantined:
    """The damaged input ends in quarantine: this path, stage and field; the reason names the file."""

    path: str
    stage: str
    field: str
    says: str = ""  # a phrase the reason must contain
    also: list[tuple[str, str, str]] = field(default_factory=list)  # further (path, field, phrase) rows
    kept: list[str] = field(default_factory=list)  # further pages that must end as attempts


@dataclass
class Kept:
    """The input is usable: it ends as an attempt (with this verdict, if given)."""

    path: str
    verdict: str | None = None


Expect = Quarantined | Kept


def page(corpus: Path, rel: str, content: str | bytes) -> Path:
    path = corpus / rel
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(content.encode() if isinstance(content, str) else content)
    return path


def other(code_tag: str, **kw) -> str:
    """A page of participant u02, different in bytes from the good page."""
    return html_page(code=f"// {code_tag}\n{CODE}", **kw)


# ------------------------------------------------------------------------------------------------
# the cases: name -> builder(corpus, outside, monkeypatch) -> expectation

P = "pages/u02/pairsum-01.html"


def _truncated(c, o, m):
    text = other("truncated")
    page(c, P, text[: text.index("<tr><th>Submit")])
    return Quarantined(P, "fields", "Result")


def _binary(c, o, m):
    rnd = random.Random(15)
    page(c, P, bytes(rnd.randrange(256) for _ in range(4096)))
    return Quarantined(P, "decode", "encoding")


def _latin1(c, o, m):
    page(c, P, other("latin-1", result="Accepté").encode("latin-1"))
    return Quarantined(P, "decode", "encoding", "not valid UTF-8")


def _utf16(c, o, m):
    page(c, P, other("utf-16").encode("utf-16"))
    return Quarantined(P, "decode", "encoding")


def _utf16le_no_bom(c, o, m):
    page(c, P, other("utf-16le").encode("utf-16-le"))
    return Quarantined(P, "decode", "encoding", "NUL")


def _nul_byte(c, o, m):
    page(c, P, other("nul").replace("<h1>", "").encode().replace(b"<pre class", b"\x00<pre class", 1))
    return Quarantined(P, "decode", "encoding", "NUL")


def _bom(c, o, m):
    page(c, P, b"\xef\xbb\xbf" + other("bom").encode())
    return Kept(P, "AC")


def _whitespace_file(c, o, m):
    page(c, P, b"  \n\t\r\n ")
    return Quarantined(P, "decode", "content", "empty file")


def _zero_bytes(c, o, m):
    page(c, P, b"")
    return Quarantined(P, "decode", "content", "empty file")


def _huge(c, o, m):
    filler = "<p>" + "x" * 1000 + "</p>\n"
    page(c, P, other("huge", body_extra=filler * 9000))  # about 9 MB, over the 8 MiB page limit
    return Quarantined(P, "discover", "size", "over the page size limit")


def _nested_divs(c, o, m):
    n = 100_000
    page(c, P, other("nested", body_extra="<div>" * n + "deep" + "</div>" * n))
    return Quarantined(P, "parse", "nesting depth", "nests deeper than")


def _unclosed_formatting(c, o, m):
    page(c, P, other("bold", body_extra="<b>" * 100_000))
    return Quarantined(P, "parse", "nesting depth")


def _no_result(c, o, m):
    page(c, P, other("no result").replace("<tr><th>Result</th><td>Accepted</td></tr>", ""))
    return Quarantined(P, "fields", "Result", "no Result field")


def _empty_result(c, o, m):
    page(c, P, other("empty result", result="  "))
    return Quarantined(P, "fields", "Result")


def _result_only_in_script(c, o, m):
    text = other("script").replace("<tr><th>Result</th><td>Accepted</td></tr>", "")
    page(c, P, text.replace("</head>", "<script>var r = 'Result: Accepted';</script></head>"))
    return Quarantined(P, "fields", "Result")


def _two_results_disagree(c, o, m):
    page(c, P, other("two results", extra_rows="<tr><th>Result</th><td>Wrong Answer</td></tr>"))
    return Quarantined(P, "ambiguous", "Result", "disagree")


def _two_results_agree(c, o, m):
    page(c, P, other("two agreeing", extra_rows="<tr><th>Result</th><td>accepted</td></tr>"))
    return Kept(P, "AC")


def _unknown_verdict(c, o, m):
    page(c, P, other("judging", result="Judging..."))
    return Quarantined(P, "fields", "Result", "not in the verdict vocabulary")


def _no_submit(c, o, m):
    page(c, P, other("no submit").replace("<tr><th>Submit</th><td>2026-03-14 14:03:22</td></tr>", ""))
    return Quarantined(P, "fields", "Submit", "no Submit field")


def _malformed_submit(c, o, m):
    page(c, P, other("bad submit", submit="2026-13-45 25:61:00"))
    return Quarantined(P, "fields", "Submit")


def _two_submits_disagree(c, o, m):
    page(c, P, other("two submits", extra_rows="<tr><th>Submit</th><td>2026-03-14 15:00:00</td></tr>"))
    return Quarantined(P, "ambiguous", "Submit", "disagree")


def _submit_before_window(c, o, m):
    page(c, P, other("early", submit="2026-03-14 09:00:00"))
    return Quarantined(P, "ambiguous", "Submit", "outside the contest window")


def _submit_after_window(c, o, m):
    page(c, P, other("late", submit="2026-03-15 09:00:00"))
    return Quarantined(P, "ambiguous", "Submit", "outside the contest window")


def _submit_in_future(c, o, m):
    (c / "contest.yaml").write_text("name: no window\n")  # so that only "in the future" can catch it
    page(c, P, other("future", submit="2099-01-01 10:00:00"))
    return Quarantined(P, "ambiguous", "Submit", "in the future")


def _unknown_problem(c, o, m):
    page(c, P, other("unknown problem", problem="zzz - Not In This Contest"))
    return Quarantined(P, "fields", "Problem", "names no known problem")


def _two_problems_disagree(c, o, m):
    page(c, P, other("two problems", extra_rows="<tr><th>Problem</th><td>admissions - Admissions</td></tr>"))
    return Quarantined(P, "ambiguous", "Problem", "disagree")


def _unknown_language(c, o, m):
    page(c, P, other("cobol", language="COBOL 85"))
    return Quarantined(P, "ambiguous", "Language", "not a language the contest judge knows")


def _no_language(c, o, m):
    page(c, P, other("no language").replace("<tr><th>Language</th><td>C++17 (GCC 12)</td></tr>", ""))
    return Quarantined(P, "fields", "Language")


def _empty_code(c, o, m):
    page(c, P, html_page(code="", notes="3 test(s) run; judge notes"))
    return Quarantined(P, "code", "code", "empty or whitespace-only")


def _whitespace_code(c, o, m):
    page(c, P, html_page(code="  \n\t\n   ", notes="3 test(s) run; judge notes"))
    return Quarantined(P, "code", "code", "empty or whitespace-only")


def _no_code(c, o, m):
    text = other("no code")
    page(c, P, text[: text.index('<pre class="judge-notes">')] + "</body></html>")
    return Quarantined(P, "code", "code", "missing")


def _source_block_lost(c, o, m):
    text = other("lost source", notes="3 test(s) run; first failure on secret/01")
    start = text.index('<pre class="source">')
    page(c, P, text[:start] + text[text.index("</pre>", start) + len("</pre>") :])
    return Quarantined(P, "code", "code", "judge output, which never becomes the code")


def _source_block_lost_unmarked_notes(c, o, m):
    text = other("lost source, bare notes").replace('<pre class="judge-notes">', "<pre>")
    start = text.index('<pre class="source">')
    page(c, P, text[:start] + text[text.index("</pre>", start) + len("</pre>") :])
    return Quarantined(P, "code", "code", "15 test(s) run")


def _md_source_fence_lost(c, o, m):
    rel = "pages/u02/pairsum-05.md"
    text = md_page(notes_block="```\n3 test(s) run; first failure on secret/01\n```\n\n")
    page(c, rel, text[: text.index("```cpp")])
    return Quarantined(rel, "code", "code", "judge output")


def _md_empty_fence(c, o, m):
    rel = "pages/u02/pairsum-02.md"
    page(c, rel, md_page(code="", notes_block="```\njudge notes: 3 tests run\n```\n\n"))
    return Quarantined(rel, "code", "code", "empty")


def _md_unclosed_fences(c, o, m):
    rel = "pages/u02/pairsum-03.md"
    page(c, rel, md_page().replace("```cpp", "~~~cpp") + "```x\n" * 50_000)
    return Quarantined(rel, "code", "code")


def _txt_empty_markers(c, o, m):
    rel = "pages/u02/pairsum-04.txt"
    page(c, rel, txt_page(code="   \n"))
    return Quarantined(rel, "code", "code", "empty or whitespace-only")


def _duplicate(c, o, m):
    page(c, "pages/u01/pairsum-02.html", (c / GOOD).read_bytes())
    return Quarantined("pages/u01/pairsum-02.html", "discover", "sha256", f"byte-identical duplicate of {GOOD}")


def _unknown_extension(c, o, m):
    page(c, "pages/u02/report.pdf", b"%PDF-1.4 not a page")
    return Quarantined("pages/u02/report.pdf", "discover", "extension", "not a page format")


def _no_participant(c, o, m):
    page(c, "pages/loose.html", other("loose"))
    return Quarantined("pages/loose.html", "fields", "User", "no participant folder")


def _dangling_symlink(c, o, m):
    (c / "pages" / "u02").mkdir(parents=True)
    os.symlink(c / "pages" / "u02" / "gone.html", c / P)
    return Quarantined(P, "discover", "symlink", "dangling")


def _symlink_loop(c, o, m):
    (c / "pages" / "u02").mkdir(parents=True)
    os.symlink("b.html", c / "pages" / "u02" / "a.html")
    os.symlink("a.html", c / "pages" / "u02" / "b.html")
    return Quarantined(
        "pages/u02/a.html", "discover", "symlink", "dangling", also=[("pages/u02/b.html", "symlink", "dangling")]
    )


def _file_symlink_out(c, o, m):
    (o / "stolen.html").write_text(other("outside"))
    (c / "pages" / "u02").mkdir(parents=True)
    os.symlink(o / "stolen.html", c / P)
    return Quarantined(P, "discover", "symlink", "leaves the corpus")


def _device_symlink_out(c, o, m):
    (c / "pages" / "u02").mkdir(parents=True)
    os.symlink("/dev/zero", c / P)
    return Quarantined(P, "discover", "symlink", "leaves the corpus")


def _dir_symlink_out(c, o, m):
    (o / "more").mkdir()
    (o / "more" / "pairsum-01.html").write_text(other("outside dir"))
    os.symlink(o / "more", c / "pages" / "u03")
    return Quarantined("pages/u03", "discover", "symlink", "leaves the corpus")


def _dir_symlink_inside(c, o, m):
    os.symlink(c / "pages" / "u01", c / "pages" / "u09")
    return Quarantined("pages/u09", "discover", "symlink", "directory links are not walked")


def _file_symlink_inside(c, o, m):
    page(c, "archive/u02-pairsum.html", other("linked"))
    (c / "pages" / "u02").mkdir(parents=True)
    os.symlink(c / "archive" / "u02-pairsum.html", c / P)
    return Kept(P, "AC")


def _fifo(c, o, m):
    (c / "pages" / "u02").mkdir(parents=True)
    os.mkfifo(c / P)
    return Quarantined(P, "discover", "file type", "a fifo")


def _unreadable(c, o, m):
    # tests run as root, for whom chmod 000 changes nothing: the open itself is made to fail
    target = page(c, P, other("unreadable"))
    real_open = Path.open

    def denied(self, *args, **kwargs):
        if self == target:
            raise PermissionError(13, "Permission denied", str(self))
        return real_open(self, *args, **kwargs)

    m.setattr(Path, "open", denied)
    return Quarantined(P, "discover", "permissions", "cannot be read")


def _directory_named_like_page(c, o, m):
    (c / P).mkdir(parents=True)
    return Quarantined(P, "discover", "file type", "directory named like a page")


def _attributes_in_one_tag(c, o, m):
    names = " ".join(f"a{i:x}" for i in range(1_000_000))  # 6.9 MB, under the size limit; distinct names
    page(c, P, other("attributes", body_extra=f"<p {names}>x</p>"))
    return Quarantined(P, "parse", "attributes", "1000000 attributes")


def _text_without_tags(c, o, m):
    line = "lorem ipsum dolor sit amet consectetur adipiscing elit sed do eiusmod tempor\n"
    page(c, P, (line * (8 * 1024 * 1024 // len(line) + 1))[: 8 * 1024 * 1024 - 1])  # just under 8 MiB
    return Quarantined(P, "fields", "Result", "no Result field")


def _empty_tags(c, o, m):
    page(c, P, other("empty tags", body_extra="<b></b>" * 500_000))
    return Quarantined(P, "parse", "element count", "over the limit")


def _long_script_with_comparisons(c, o, m):
    # "i<n" in a script is no tag to the HTML tokenizer: the attribute bound must not count its words
    script = "<script>for (var i = 0; i<n ; i++) { " + "total = total + i ; " * 2000 + "}</script>"
    page(c, P, other("script").replace("</head>", script + "</head>"))
    return Kept(P, "AC")


def _file_name_not_utf8(c, o, m):
    (c / "pages" / "u02").mkdir(parents=True)
    (c / "pages" / "u02" / os.fsdecode(b"pairsum-\xe9\xff.html")).write_text(other("latin-1 name"))
    page(c, "pages/u02/pairsum-02.html", other("beside it"))
    return Quarantined(
        "pages/u02/pairsum-\\xe9\\xff.html", "discover", "name", "not valid UTF-8", kept=["pages/u02/pairsum-02.html"]
    )


def _folder_name_not_utf8(c, o, m):
    folder = c / "pages" / os.fsdecode(b"u\xe902")
    folder.mkdir(parents=True)
    (folder / "pairsum-01.html").write_text(other("in a latin-1 folder"))
    page(c, "pages/u03/pairsum-01.html", other("next folder"))
    return Quarantined("pages/u\\xe902", "discover", "name", "folder is not read", kept=["pages/u03/pairsum-01.html"])


def _log_and_package_names_not_utf8(c, o, m):
    (c / "logs" / "u01" / os.fsdecode(b"session-\xe9.md")).write_text("**You:**\nhello pairsum\n")
    (c / "problems" / os.fsdecode(b"p\xe9")).mkdir()
    return Quarantined(
        "logs/u01/session-\\xe9.md",
        "logs",
        "name",
        "not valid UTF-8",
        also=[("problems/p\\xe9", "name", "not valid UTF-8")],
    )


def _second_problem_page(c: Path) -> str:
    rel = "pages/u02/admissions-01.html"
    page(c, rel, html_page(problem="admissions - Admissions", code=f"// admissions\n{CODE}"))
    return rel


ORPHAN = "its problem package was quarantined"


def _broken_problem_yaml(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions" / "problem.yaml").write_text("name: [unclosed\nlimits: {time_limit_s: 1\n")
    return Quarantined(
        "problems/admissions", "problems", "problem.yaml", "not valid UTF-8 YAML", also=[(rel, "Problem", ORPHAN)]
    )


def _problem_yaml_not_mapping(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions" / "problem.yaml").write_text("- just\n- a list\n")
    return Quarantined(
        "problems/admissions", "problems", "problem.yaml", "expected a mapping", also=[(rel, "Problem", ORPHAN)]
    )


def _problem_yaml_binary(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions" / "problem.yaml").write_bytes(b"name: \xff\xfe\x00garbage")
    return Quarantined("problems/admissions", "problems", "problem.yaml", also=[(rel, "Problem", ORPHAN)])


def _non_numeric_time_limit(c, o, m):
    rel = _second_problem_page(c)
    write_package(c, "admissions", yaml_text="name: Admissions\nlimits:\n  time_limit_s: two seconds\n")
    return Quarantined(
        "problems/admissions",
        "problems",
        "limits.time_limit_s",
        "must be a positive number",
        also=[(rel, "Problem", ORPHAN)],
    )


def _negative_memory(c, o, m):
    rel = _second_problem_page(c)
    write_package(c, "admissions", yaml_text="name: Admissions\nlimits:\n  memory_mb: -5\n")
    return Quarantined(
        "problems/admissions",
        "problems",
        "limits.memory_mb",
        "must be a positive number",
        also=[(rel, "Problem", ORPHAN)],
    )


def _in_without_ans(c, o, m):
    rel = _second_problem_page(c)
    write_package(c, "admissions", tests={"sample/1": ("1 2\n", "3\n"), "secret/2": ("4 4\n", None)})
    return Quarantined(
        "problems/admissions", "problems", "data/secret/2.ans", "has no answer file", also=[(rel, "Problem", ORPHAN)]
    )


def _statement_not_utf8(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions" / "problem_statement" / "problem.en.md").write_bytes("Énoncé".encode("latin-1"))
    return Quarantined(
        "problems/admissions", "problems", "problem_statement", "not valid UTF-8", also=[(rel, "Problem", ORPHAN)]
    )


def _missing_statement(c, o, m):
    # some real corpora ship no statements (ConDefects, CSEDM): the package is read, its attempts kept
    rel = _second_problem_page(c)
    (c / "problems" / "admissions" / "problem_statement" / "problem.en.md").unlink()
    return Kept(rel, "AC")


def _empty_package_folder(c, o, m):
    (c / "problems" / "ghost").mkdir()
    return Quarantined("problems/ghost", "problems", "problem.yaml", "no problem.yaml")


def _binary_log(c, o, m):
    rel = "logs/u01/session-2.md"
    rnd = random.Random(3)
    page(c, rel, bytes(rnd.randrange(256) for _ in range(2048)))
    return Quarantined(rel, "logs", "encoding")


def _log_undecodable_byte(c, o, m):
    rel = "logs/u01/session-3.txt"
    page(c, rel, b"USER:\nhow do I solve pairsum \xe9t\xe9?\n")
    return Quarantined(rel, "logs", "encoding", "not valid UTF-8")


def _log_symlink_out(c, o, m):
    (o / "secrets.txt").write_text("USER:\nsk-not-a-real-key\n")
    os.symlink(o / "secrets.txt", c / "logs" / "u01" / "session-4.txt")
    return Quarantined("logs/u01/session-4.txt", "logs", "symlink", "leaves the corpus")


def _log_fifo(c, o, m):
    os.mkfifo(c / "logs" / "u01" / "session-5.txt")
    return Quarantined("logs/u01/session-5.txt", "logs", "file type", "a fifo")


def _log_nested_html(c, o, m):
    rel = "logs/u01/session-6.html"
    page(c, rel, "<html><body>" + "<div>" * 100_000 + "pairsum" + "</div>" * 100_000 + "</body></html>")
    return Quarantined(rel, "logs", "nesting depth")


def _package_symlink_out(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions").rename(o / "admissions")
    os.symlink(o / "admissions", c / "problems" / "admissions")
    return Quarantined(
        "problems/admissions", "problems", "symlink", "leaves the corpus", also=[(rel, "Problem", ORPHAN)]
    )


def _package_symlink_inside(c, o, m):
    rel = _second_problem_page(c)
    (c / "problems" / "admissions").rename(c / "shared-admissions")
    os.symlink(c / "shared-admissions", c / "problems" / "admissions")
    return Kept(rel, "AC")


CASES: dict[str, Callable] = {
    "truncated html": _truncated,
    "binary garbage": _binary,
    "latin-1 bytes": _latin1,
    "utf-16 with BOM": _utf16,
    "utf-16le without BOM": _utf16le_no_bom,
    "NUL byte in html": _nul_byte,
    "utf-8 BOM": _bom,
    "whitespace-only file": _whitespace_file,
    "zero-byte file": _zero_bytes,
    "huge file": _huge,
    "100k nested divs": _nested_divs,
    "100k unclosed <b>": _unclosed_formatting,
    "no Result": _no_result,
    "empty Result": _empty_result,
    "Result only in a script": _result_only_in_script,
    "two disagreeing Results": _two_results_disagree,
    "two agreeing Results": _two_results_agree,
    "unknown verdict string": _unknown_verdict,
    "no Submit": _no_submit,
    "malformed Submit": _malformed_submit,
    "two disagreeing Submits": _two_submits_disagree,
    "Submit before the window": _submit_before_window,
    "Submit after the window": _submit_after_window,
    "Submit in the future": _submit_in_future,
    "unknown problem": _unknown_problem,
    "two disagreeing Problems": _two_problems_disagree,
    "unknown language": _unknown_language,
    "no Language": _no_language,
    "empty code block": _empty_code,
    "whitespace-only code": _whitespace_code,
    "no code block": _no_code,
    "markdown empty fence": _md_empty_fence,
    "source block lost, judge notes kept": _source_block_lost,
    "source block lost, unmarked notes kept": _source_block_lost_unmarked_notes,
    "markdown source fence lost, notes fence kept": _md_source_fence_lost,
    "markdown 50k unclosed fences": _md_unclosed_fences,
    "text empty SOURCE markers": _txt_empty_markers,
    "byte-identical duplicate": _duplicate,
    "unknown extension": _unknown_extension,
    "page without participant": _no_participant,
    "dangling symlink": _dangling_symlink,
    "symlink loop": _symlink_loop,
    "file symlink out of the corpus": _file_symlink_out,
    "symlink to /dev/zero": _device_symlink_out,
    "directory symlink out of the corpus": _dir_symlink_out,
    "directory symlink inside the corpus": _dir_symlink_inside,
    "file symlink inside the corpus": _file_symlink_inside,
    "fifo": _fifo,
    "unreadable file": _unreadable,
    "directory named like a page": _directory_named_like_page,
    "broken problem.yaml": _broken_problem_yaml,
    "problem.yaml not a mapping": _problem_yaml_not_mapping,
    "binary problem.yaml": _problem_yaml_binary,
    "non-numeric time limit": _non_numeric_time_limit,
    "negative memory limit": _negative_memory,
    ".in without .ans": _in_without_ans,
    "statement not UTF-8": _statement_not_utf8,
    "missing statement": _missing_statement,
    "empty package folder": _empty_package_folder,
    "package symlink out of the corpus": _package_symlink_out,
    "package symlink inside": _package_symlink_inside,
    "binary log": _binary_log,
    "log with an undecodable byte": _log_undecodable_byte,
    "log symlink out of the corpus": _log_symlink_out,
    "log fifo": _log_fifo,
    "log with 100k nested divs": _log_nested_html,
    "1,000,000 attributes in one tag": _attributes_in_one_tag,
    "8 MiB of text without tags": _text_without_tags,
    "500,000 empty tags": _empty_tags,
    "a long script with comparisons": _long_script_with_comparisons,
    "file name not UTF-8": _file_name_not_utf8,
    "folder name not UTF-8": _folder_name_not_utf8,
    "log and package names not UTF-8": _log_and_package_names_not_utf8,
}


def ingest(corpus: Path):
    problems = read_problem_table(corpus, "pages")
    names = dict(zip(problems["problem_id"].to_list(), problems["name"].to_list()))
    pages = list_pages(corpus)
    tables = read_corpus(corpus, "pages", names, contest_settings(corpus), pages=pages)
    return problems, pages, tables


def test_there_are_at_least_40_kinds():
    assert len(CASES) >= 40


@pytest.mark.timeout(60)
@pytest.mark.parametrize("kind", list(CASES))
def test_damaged_input_is_accounted_for(tmp_path, monkeypatch, kind):
    corpus = base_corpus(tmp_path)
    outside = tmp_path / "outside"
    outside.mkdir()
    expect = CASES[kind](corpus, outside, monkeypatch)

    problems, pages, tables = ingest(corpus)  # no crash
    attempts, quarantine = tables.attempts, tables.quarantine

    # the good page is an attempt, with its verdict
    good = attempts.filter(pl.col("source_path") == GOOD)
    assert good.height == 1 and good["verdict"][0] == "AC"
    # raw paths = attempts + quarantine, path by path
    assert reconcile(pages, attempts, quarantine).is_empty()
    page_rows = quarantine.filter(pl.col("source_path").str.starts_with("pages/"))
    assert len(pages) == len(attempts) + len(page_rows) == tables.raw_files
    # every quarantine row names its file
    for row in quarantine.iter_rows(named=True):
        assert row["source_path"] in row["reason"], row

    if isinstance(expect, Kept):
        row = attempts.filter(pl.col("source_path") == expect.path)
        assert row.height == 1, quarantine.to_dicts()
        assert expect.verdict is None or row["verdict"][0] == expect.verdict
        return
    rows = quarantine.filter(pl.col("source_path") == expect.path)
    assert rows.height == 1, (expect.path, quarantine.to_dicts())
    row = rows.row(0, named=True)
    assert (row["stage"], row["field"]) == (expect.stage, expect.field), row
    assert expect.says in row["reason"], row
    assert expect.path not in set(attempts["source_path"])
    for path, field_name, phrase in expect.also:
        extra = quarantine.filter(pl.col("source_path") == path)
        assert extra.height == 1 and extra["field"][0] == field_name and phrase in extra["reason"][0], (
            quarantine.to_dicts()
        )
    for path in expect.kept:
        assert attempts.filter(pl.col("source_path") == path).height == 1, quarantine.to_dicts()
    if expect.stage == "problems":  # the package is left out of problems, the other one is read
        pid = Path(expect.path).name
        assert pid not in set(problems["problem_id"]) and "pairsum" in set(problems["problem_id"])


def test_a_quarantined_problem_loses_no_attempt_of_another(tmp_path):
    corpus = base_corpus(tmp_path)
    page(corpus, "pages/u02/pairsum-01.html", other("second pairsum"))
    page(corpus, "pages/u02/admissions-01.html", html_page(problem="admissions - Admissions", code="// a\n" + CODE))
    (corpus / "problems" / "admissions" / "problem.yaml").write_text("limits: {time_limit_s: fast}\n")
    _, pages, tables = ingest(corpus)
    assert set(tables.attempts["source_path"]) == {GOOD, "pages/u02/pairsum-01.html"}
    assert set(tables.quarantine["source_path"]) == {"pages/u02/admissions-01.html", "problems/admissions"}


def test_reconcile_names_what_is_lost_or_counted_twice(tmp_path):
    corpus = base_corpus(tmp_path)
    page(corpus, "pages/u02/pairsum-01.html", other("x", result="Judging..."))
    _, pages, tables = ingest(corpus)
    assert reconcile(pages, tables.attempts, tables.quarantine).is_empty()
    lost = reconcile(pages, tables.attempts.filter(pl.col("source_path") != GOOD), tables.quarantine)
    assert lost.to_dicts() == [{"source_path": GOOD, "issue": "unaccounted", "rows": 0}]
    twice = reconcile(pages, pl.concat([tables.attempts, tables.attempts]), tables.quarantine)
    assert twice.to_dicts() == [{"source_path": GOOD, "issue": "twice", "rows": 2}]


def test_reconciliation_check_fails_when_a_file_is_unaccounted(tmp_path):
    from cojudge_assets.defs.ingest.checks import every_file_accounted_for
    from cojudge_assets.defs.resources import CorpusResource

    corpus = base_corpus(tmp_path)
    os.symlink("/etc", corpus / "pages" / "u04")
    _, pages, tables = ingest(corpus)
    resource = CorpusResource(path=str(corpus), layout="pages")
    ok = every_file_accounted_for(
        quarantine=tables.quarantine, attempts=tables.attempts, submission_pages=pages, corpus=resource
    )
    assert ok.passed and ok.metadata["raw_inputs"].value == 2
    lost = every_file_accounted_for(
        quarantine=tables.quarantine.filter(pl.col("source_path") != "pages/u04"),
        attempts=tables.attempts,
        submission_pages=pages,
        corpus=resource,
    )
    assert not lost.passed
    page(corpus, "pages/u05/pairsum-01.html", other("arrived after the listing"))
    stale = every_file_accounted_for(
        quarantine=tables.quarantine, attempts=tables.attempts, submission_pages=pages, corpus=resource
    )
    assert not stale.passed and stale.metadata["paths_on_disk"].value == 3


def test_pages_folder_that_is_a_symlink_out_of_the_corpus(tmp_path):
    corpus = base_corpus(tmp_path)
    elsewhere = tmp_path / "elsewhere"
    (corpus / "pages").rename(elsewhere)
    os.symlink(elsewhere, corpus / "pages")
    _, pages, tables = ingest(corpus)
    assert tables.attempts.is_empty() and pages["source_path"].to_list() == ["pages"]
    row = tables.quarantine.filter(pl.col("source_path") == "pages").row(0, named=True)
    assert (row["field"], "leaves the corpus" in row["reason"]) == ("symlink", True)
    assert reconcile(pages, tables.attempts, tables.quarantine).is_empty()


def test_corpus_fingerprint_survives_damage_and_follows_no_link(tmp_path, monkeypatch):
    from cojudge_assets.core.ingest.corpus import fingerprint

    corpus = base_corpus(tmp_path)
    before = fingerprint(corpus)
    outside = tmp_path / "outside.html"
    outside.write_text("one")
    os.symlink(outside, corpus / "pages" / "u01" / "link.html")
    os.symlink(corpus / "gone", corpus / "pages" / "u01" / "dangling.html")
    os.mkfifo(corpus / "pages" / "u01" / "pipe.html")  # opening it would block
    target = corpus / GOOD
    real_open = Path.open
    monkeypatch.setattr(
        Path,
        "open",
        lambda self, *a, **k: (
            (_ for _ in ()).throw(PermissionError(13, "denied")) if self == target else real_open(self, *a, **k)
        ),
    )
    (corpus / "pages" / "u01" / os.fsdecode(b"caf\xe9.html")).write_text("a name that is not UTF-8")
    damaged = fingerprint(corpus)
    assert damaged != before
    outside.write_text("two")  # the link's target is outside the corpus: not read, so not part of its version
    assert fingerprint(corpus) == damaged
