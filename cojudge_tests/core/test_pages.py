"""Reading saved submission pages: named fields, code blocks, and a quarantine that loses nothing."""

from __future__ import annotations

import random
from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.ingest.attempts import PageRules, list_pages, order_disagreements, read_attempts
from cojudge_assets.core.ingest.pages import PageError, decode_page, naive_verdict_scan, parse_page, visible_text

CODE = (
    "#include <stdio.h>\n"
    "int main(void) {\n"
    "    int accepted = 0;\n"
    '    if (accepted < 1) printf("%d\\n", accepted);\n'
    "    return 0;\n"
    "}\n"
)
RULES = PageRules(problem_ids={"admissions", "pairsum"})


def html_page(
    result="Wrong Answer",
    submit="2026-03-14 14:03:22",
    problem="admissions - Admissions",
    language="C (GCC 12, C11)",
    code=CODE,
    saved="2026-03-14 18:01:02",
    extra_rows="",
) -> str:
    esc = code.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    return f"""<!DOCTYPE html><html><head><title>Submission</title>
<style>.verdict {{ color: red }}</style><script>var labels = {{"AC": "Accepted"}}; // Result: Accepted</script></head>
<body><div class="page-header">Page saved {saved}</div>
<table><tr><th>Submission</th><td>48213</td></tr><tr><th>Problem</th><td>{problem}</td></tr>
<tr><th>Language</th><td>{language}</td></tr><tr><th>Submit</th><td>{submit}</td></tr>
<tr><th>Result</th><td>{result}</td></tr>{extra_rows}</table>
<pre class="notes">3 tests run</pre>
<pre><code>{esc}</code></pre></body></html>
"""


def md_page(result="Accepted", submit="2026-03-14 14:05:00", code=CODE) -> str:
    return (
        f"_Page saved 2026-03-14 18:00:00_\n\n| Field | Value |\n|---|---|\n| Problem | pairsum - Pair Sums |\n"
        f"| Language | C++17 (GCC 12) |\n| Submit | {submit} |\n| Result | {result} |\n\n```cpp\n{code}```\n"
    )


def txt_page(result="Time Limit Exceeded", code=CODE) -> str:
    return (
        f"[page saved 2026-03-14 18:00:00]\n\nProblem: pairsum - Pair Sums\nLanguage: Java 17 (OpenJDK)\n"
        f"Submit: 2026-03-14 14:09:00\nResult: {result}\n\n----- BEGIN SOURCE -----\n{code}----- END SOURCE -----\n"
    )


def test_fields_come_from_named_fields_not_page_text():
    page = parse_page(html_page(), "html")
    assert page.fields["result"] == "Wrong Answer"
    assert page.fields["submit"] == "2026-03-14 14:03:22"
    assert page.code == CODE  # the longest <pre>, unescaped
    assert str(page.page_saved_at) == "2026-03-14 18:01:02"


def test_naive_scan_misreads_the_accepted_variable():
    """V3: a whole-page scan finds the variable ``accepted`` in the code and calls a WA page accepted."""
    text = html_page(result="Wrong Answer")
    assert naive_verdict_scan(visible_text(text, "html")) == "AC"
    assert parse_page(text, "html").fields["result"] == "Wrong Answer"


def test_scripts_and_styles_are_removed_first():
    text = html_page(result="Wrong Answer", code="int main(){return 0;}\n")
    assert "Accepted" in text and "Accepted" not in visible_text(text, "html")
    assert naive_verdict_scan(visible_text(text, "html")) == "WA"


def test_markdown_and_text_pages():
    md = parse_page(md_page(), "md")
    assert (md.fields["result"], md.fields["language"], md.code) == ("Accepted", "C++17 (GCC 12)", CODE)
    txt = parse_page(txt_page(), "txt")
    assert (txt.fields["result"], txt.code) == ("Time Limit Exceeded", CODE)


def test_code_falls_back_to_code_element():
    text = "<html><body><table><tr><th>Result</th><td>Accepted</td></tr></table><code>print(1)</code></body></html>"
    page = parse_page(text, "html")
    assert (page.code, page.code_source) == ("print(1)", "code")


def test_undecodable_page_is_an_error_naming_the_file():
    with pytest.raises(PageError, match="pages/u1/x.html: not valid UTF-8"):
        decode_page("Résultat".encode("latin-1"), "pages/u1/x.html")


# ----------------------------------------------------------------------------------------------
# quarantine accounting on a fuzzed set of damaged pages

GOOD = html_page()


def _damaged() -> dict[str, bytes]:
    rnd = random.Random(7)
    g = GOOD
    return {
        "empty.html": b"",
        "whitespace.html": b"   \n\t\n",
        "latin1.html": g.replace("Wrong Answer", "Résultat faux").encode("latin-1"),
        "utf16.html": g.encode("utf-16"),
        "binary.html": bytes(rnd.randrange(256) for _ in range(2000)),
        "no-result.html": g.replace("<tr><th>Result</th><td>Wrong Answer</td></tr>", ""),
        "empty-result.html": html_page(result=""),
        "unknown-verdict.html": html_page(result="Judging..."),
        "pending.html": html_page(result="Pending"),
        "no-submit.html": g.replace("<tr><th>Submit</th><td>2026-03-14 14:03:22</td></tr>", ""),
        "submit-words.html": html_page(submit="yesterday afternoon"),
        "submit-impossible.html": html_page(submit="2026-13-45 25:61:00"),
        "submit-time-only.html": html_page(submit="14:03:22"),
        "no-problem.html": g.replace("<tr><th>Problem</th><td>admissions - Admissions</td></tr>", ""),
        "unknown-problem.html": html_page(problem="zzz - Not In This Contest"),
        "blank-problem.html": html_page(problem="   "),
        "no-language.html": g.replace("<tr><th>Language</th><td>C (GCC 12, C11)</td></tr>", ""),
        "empty-language.html": html_page(language=""),
        "no-code.html": g.replace('<pre class="notes">3 tests run</pre>', "").split("<pre><code>")[0]
        + "</body></html>",
        "empty-code.html": html_page(code="").replace('<pre class="notes">3 tests run</pre>', ""),
        "truncated.html": g[: g.index("<tr><th>Submit")],
        "result-only-in-script.html": g.replace("<tr><th>Result</th><td>Wrong Answer</td></tr>", ""),
        "result-only-in-comment.html": g.replace(
            "<tr><th>Result</th><td>Wrong Answer</td></tr>", "<!-- Result: Accepted -->"
        ),
        "verdict-label-not-result.html": g.replace("<th>Result</th>", "<th>Verdict</th>"),
        "report.pdf": b"%PDF-1.4 not a page",
        "README": b"notes about the contest",
        "data.json": b'{"result": "Accepted"}',
        "md-no-table.md": b"# Submission\n\nsome notes only\n",
        "md-no-fence.md": md_page().split("```")[0].encode(),
        "md-empty-result.md": md_page(result=" ").encode(),
        "txt-no-markers.txt": txt_page().split("----- BEGIN")[0].encode(),
        "txt-unknown-verdict.txt": txt_page(result="Skipped").encode(),
        "txt-no-result.txt": txt_page().replace("Result: Time Limit Exceeded\n", "").encode(),
    }


@pytest.fixture()
def damaged_corpus(tmp_path: Path) -> tuple[Path, dict[str, bytes]]:
    folder = tmp_path / "pages" / "u01"
    folder.mkdir(parents=True)
    damaged = {k: (v.encode() if isinstance(v, str) else v) for k, v in _damaged().items()}
    for name, content in damaged.items():
        (folder / name).write_bytes(content)
    (folder / "good-01.html").write_text(GOOD)
    (folder / "good-01-copy.html").write_text(GOOD)  # a byte-identical duplicate
    (folder / "good-02.md").write_text(md_page())
    (folder / "good-03.txt").write_text(txt_page())
    (tmp_path / "pages" / "loose.html").write_text(html_page(submit="2026-03-14 15:00:00"))  # no participant folder
    return tmp_path, damaged


def test_every_damaged_file_is_quarantined_and_the_count_adds_up(damaged_corpus):
    corpus, damaged = damaged_corpus
    assert len(damaged) >= 30
    pages = list_pages(corpus)
    attempts, quarantine = read_attempts(corpus, pages, RULES)
    assert len(attempts) + len(quarantine) == len(pages)  # nothing lost, nothing twice
    assert set(attempts["source_path"]) | set(quarantine["source_path"]) == set(pages["source_path"])
    # of two byte-identical files the first in path order is kept
    assert set(attempts["attempt_uid"]) == {"u01/good-01-copy.html", "u01/good-02.md", "u01/good-03.txt"}
    quarantined = set(quarantine["source_path"])
    for name in damaged:
        assert f"pages/u01/{name}" in quarantined, name
    assert "pages/loose.html" in quarantined and "pages/u01/good-01.html" in quarantined
    for row in quarantine.iter_rows(named=True):
        assert row["source_path"] in row["reason"]  # every reason names its file


@pytest.mark.parametrize(
    "name,stage,field",
    [
        ("no-result.html", "fields", "Result"),
        ("unknown-verdict.html", "fields", "Result"),
        ("no-submit.html", "fields", "Submit"),
        ("submit-words.html", "fields", "Submit"),
        ("unknown-problem.html", "fields", "Problem"),
        ("no-code.html", "code", "code"),
        ("latin1.html", "decode", "encoding"),
        ("empty.html", "decode", "content"),
        ("report.pdf", "discover", "extension"),
    ],
)
def test_quarantine_names_stage_and_field(damaged_corpus, name, stage, field):
    corpus, _ = damaged_corpus
    _, quarantine = read_attempts(corpus, list_pages(corpus), RULES)
    row = quarantine.filter(pl.col("source_path") == f"pages/u01/{name}").row(0, named=True)
    assert (row["stage"], row["field"]) == (stage, field)


def test_duplicate_keeps_the_first_path_in_order(damaged_corpus):
    corpus, _ = damaged_corpus
    _, quarantine = read_attempts(corpus, list_pages(corpus), RULES)
    row = quarantine.filter(pl.col("source_path") == "pages/u01/good-01.html")
    assert row.height == 1 and "duplicate of pages/u01/good-01-copy.html" in row["reason"][0]


def test_turns_follow_the_submit_clock_not_the_header_clock(tmp_path):
    folder = tmp_path / "pages" / "u02"
    folder.mkdir(parents=True)
    # saved newest-first: the header clock runs backwards relative to the Submit clock
    times = ["2026-03-14 14:00:00", "2026-03-14 14:30:00", "2026-03-14 15:10:00"]
    for n, submit in enumerate(times, start=1):
        (folder / f"admissions-{n:02d}.html").write_text(
            html_page(submit=submit, saved=f"2026-03-14 18:0{9 - n}:00", code=f"// attempt {n}\n{CODE}")
        )
    attempts, _ = read_attempts(tmp_path, list_pages(tmp_path), RULES)
    ordered = attempts.sort("turn")
    assert ordered["attempt_uid"].to_list() == [f"u02/admissions-0{n}.html" for n in (1, 2, 3)]
    assert ordered["page_saved_at"].is_sorted(descending=True)
    assert order_disagreements(attempts).is_empty()


def test_filename_order_disagreement_is_listed(tmp_path):
    folder = tmp_path / "pages" / "u02"
    folder.mkdir(parents=True)
    (folder / "admissions-01.html").write_text(html_page(submit="2026-03-14 15:00:00", code="// b\n" + CODE))
    (folder / "admissions-02.html").write_text(html_page(submit="2026-03-14 14:00:00", code="// a\n" + CODE))
    attempts, _ = read_attempts(tmp_path, list_pages(tmp_path), RULES)
    assert set(order_disagreements(attempts)["attempt_uid"]) == {"u02/admissions-01.html", "u02/admissions-02.html"}
