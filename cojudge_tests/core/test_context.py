"""Participant context: three conditions, provenance tiers, exact character bounds, scrubbing."""

from __future__ import annotations

import hashlib
from datetime import datetime
from pathlib import Path

import polars as pl
import pytest

from cojudge_assets.core.ingest.attempts import ATTEMPT_SCHEMA
from cojudge_assets.core.ingest.context import CONTEXT_CAP, build_contexts, find_code, parse_log, read_logs
from cojudge_assets.core.ingest.scrub import harvest_identities, scrub

PROBLEMS = {"pairsum": "Pair Sums", "coins": "Coin Change", "brackets": "Brackets"}
CODE_A = '#include <stdio.h>\nint main(void) { puts("1"); return 0; }'
CODE_B = '#include <stdio.h>\nint main(void) { puts("2"); return 0; }'


def attempt(uid, problem, turn, code, participant="u01"):
    row = {k: None for k in ATTEMPT_SCHEMA}
    row.update(
        attempt_uid=uid,
        participant=participant,
        problem_id=problem,
        turn=turn,
        code=code + "\n",
        submitted_at=datetime(2026, 3, 14, 14, turn),
        verdict="WA",
        accepted=False,
    )
    return row


def write_log(corpus: Path, name: str, text: str, participant: str = "u01") -> None:
    folder = corpus / "logs" / participant
    folder.mkdir(parents=True, exist_ok=True)
    (folder / name).write_text(text)


def contexts(corpus: Path, attempts: list[dict]) -> pl.DataFrame:
    logs, rejected = read_logs(corpus, PROBLEMS)
    assert rejected == []
    return build_contexts(pl.DataFrame(attempts, schema=ATTEMPT_SCHEMA), logs)


def pick(table, uid, condition):
    return table.filter((pl.col("attempt_uid") == uid) & (pl.col("condition") == condition)).row(0, named=True)


def test_three_tiers(tmp_path):
    write_log(
        tmp_path,
        "session-1.md",
        "**You:**\n\nProblem Pair Sums (pairsum): count pairs.\n\n**Assistant:**\n\nTry two pointers.\n\n"
        f"**Assistant:**\n\n```c\n{CODE_A}\n```\n\n**You:**\n\nNow coins please, greedy?\n\n"
        "**Assistant:**\n\nGreedy fails for coins; use DP.\n",
    )
    table = contexts(
        tmp_path,
        [attempt("a", "pairsum", 1, CODE_A), attempt("b", "coins", 1, CODE_B), attempt("c", "brackets", 1, CODE_B)],
    )
    a, b, c = (pick(table, u, "nonblind") for u in "abc")
    assert a["provenance"] == "anchored"
    assert "two pointers" in a["context"] and CODE_A not in a["context"]  # strictly before the code
    assert "coins" not in a["context"].lower()  # restricted to this problem
    assert b["provenance"] == "segmented" and "DP" in b["context"] and "pairs" not in b["context"]
    assert (c["provenance"], c["context"], c["chars"]) == ("none", "", 0)
    assert all(pick(table, u, "blind")["context"] == "" for u in "abc")
    prefix = pick(table, "a", "prefix12k")["context"]
    assert prefix == pick(table, "c", "prefix12k")["context"]  # independent of the attempt
    assert "two pointers" in prefix and "coins" in prefix


def test_exact_character_bounds(tmp_path):
    filler = "".join(f"line {i} about pairsum and more words here\n" for i in range(800))  # ~34k chars
    write_log(tmp_path, "session-1.txt", f"USER:\n{filler}\nASSISTANT:\n```\n{CODE_A}\n```\n")
    table = contexts(tmp_path, [attempt("a", "pairsum", 1, CODE_A)])
    nonblind, prefix = pick(table, "a", "nonblind"), pick(table, "a", "prefix12k")
    assert nonblind["chars"] == len(nonblind["context"]) == CONTEXT_CAP
    assert prefix["chars"] == len(prefix["context"]) == CONTEXT_CAP
    assert prefix["context"].startswith("user: line 0 ")  # the first 12,000 characters
    assert "line 799" in nonblind["context"] and "line 0 " not in nonblind["context"]  # nearest the anchor


def test_short_log_is_not_padded(tmp_path):
    write_log(tmp_path, "a.md", f"**You:**\n\npairsum please\n\n**Assistant:**\n\n```c\n{CODE_A}\n```\n")
    table = contexts(tmp_path, [attempt("a", "pairsum", 1, CODE_A)])
    row = pick(table, "a", "nonblind")
    assert row["context"] == "user: pairsum please\n\n" + "assistant: ```c\n"  # strictly before the code
    assert row["chars"] == len(row["context"]) < CONTEXT_CAP


def test_logs_are_read_in_natural_file_order(tmp_path):
    write_log(tmp_path, "session-10.md", "**You:**\n\nten\n")
    write_log(tmp_path, "session-2.md", "**You:**\n\ntwo\n")
    logs, _ = read_logs(tmp_path, PROBLEMS)
    assert logs.sort("seq")["text"].to_list() == ["two", "ten"]


def test_html_logs_keep_code_verbatim(tmp_path):
    escaped = CODE_A.replace("<", "&lt;").replace(">", "&gt;")
    write_log(
        tmp_path,
        "s.html",
        '<html><body><div class="message user"><div class="role">user</div>'
        '<p>pairsum help</p></div><div class="message assistant"><div class="role">assistant</div>'
        f"<pre><code>{escaped}</code></pre></div></body></html>",
    )
    table = contexts(tmp_path, [attempt("a", "pairsum", 1, CODE_A)])
    assert pick(table, "a", "nonblind")["provenance"] == "anchored"


def test_segmented_context_stops_at_the_next_anchored_attempt(tmp_path):
    write_log(
        tmp_path,
        "s.md",
        "**You:**\n\npairsum: my idea is sorting\n\n**You:**\n\nthe judge said WA\n\n"
        f"**Assistant:**\n\n```c\n{CODE_B}\n```\n\n**You:**\n\nlater talk about pairsum\n",
    )
    table = contexts(tmp_path, [attempt("a", "pairsum", 1, CODE_A), attempt("b", "pairsum", 2, CODE_B)])
    a = pick(table, "a", "nonblind")
    assert a["provenance"] == "segmented"
    assert "sorting" in a["context"] and "later talk" not in a["context"]


def test_scrubbing_removes_people_and_secrets():
    text = (
        "Hi! I'm Mara Lindqvist (student no. 2023123456, mara.lindqvist@uni-example.edu). "
        "key OPENAI_API_KEY=sk-proj-AbCdEfGhIjKlMnOpQrStUvWxYz0123456789 ok"
    )
    later = "Mara, your pairsum code looks fine; Lindqvist wrote 2023123456 again"
    ids = harvest_identities([text, later])
    clean = scrub(text + "\n" + later, ids)
    for leaked in ("Mara", "Lindqvist", "2023123456", "mara.lindqvist", "sk-proj", "AbCdEf"):
        assert leaked not in clean
    assert "[name]" in clean and "[email]" in clean and "[id]" in clean and "OPENAI_API_KEY=[secret:openai]" in clean
    assert "pairsum code looks fine" in clean  # the rest is kept


def test_scrubbing_keeps_code_numbers():
    code = "const long long MOD = 1000000007;\nint main() { int n = 200000; }"
    assert scrub(code) == code


def test_context_is_scrubbed(tmp_path):
    write_log(
        tmp_path,
        "s.md",
        "**You:**\n\nI'm Omar Haddad, omar@example.org. pairsum please. "
        "token sk-ant-abcdefghijklmnopqrstuvwxyz\n\n"
        f"**Assistant:**\n\nSure Omar.\n\n```c\n{CODE_A}\n```\n",
    )
    table = contexts(tmp_path, [attempt("a", "pairsum", 1, CODE_A)])
    for condition in ("prefix12k", "nonblind"):
        ctx = pick(table, "a", condition)["context"]
        assert "Omar" not in ctx and "omar@" not in ctx and "sk-ant" not in ctx and "pairsum please" in ctx


def test_role_markers_split_records():
    records = parse_log("**You:**\n\nhello\n\n**Assistant:**\n\nhi there\n", "md")
    assert records == [("user", "hello"), ("assistant", "hi there")]
    records = parse_log("[14:02] USER:\nhello\n[14:03] ASSISTANT:\nhi\n", "txt")
    assert records == [("user", "hello"), ("assistant", "hi")]


RAW = (
    "**You:**\n\nI'm Omar Haddad (student no. 2023123456), omar (at) example (dot) org. pairsum please. "
    "My key: sk-proj-AbCdEfGhIjKlMnOpQrStUv0123 and "
    "Bearer eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiIxMjM0NTY3In0.c2lnbmF0dXJl\n\n"
    "**Assistant:**\n\nSure Omar.\n"
)


def test_prompt_logs_hold_scrubbed_text_and_the_raw_file_only_as_its_hash(tmp_path):
    write_log(tmp_path, "s.md", RAW)
    write_log(tmp_path, "t.md", "**You:**\n\nHaddad again, coins now; id 2023123456\n")  # harvested from s.md
    logs, _ = read_logs(tmp_path, PROBLEMS)
    stored = "\n".join(str(v) for row in logs.iter_rows() for v in row)
    for leaked in ("Omar", "Haddad", "2023123456", "omar (at)", "sk-proj", "AbCdEf", "eyJhbGci", "c2lnbmF0dXJl"):
        assert leaked not in stored
    assert logs["text"].to_list()[0] == (
        "I'm [name] (student no. [id]), [email]. pairsum please. My key: [secret:openai] and Bearer [secret:jwt]"
    )
    assert logs["text"].to_list()[2] == "[name] again, coins now; id [id]"
    assert logs["problem_id"].to_list() == ["pairsum", "pairsum", "coins"]  # found on the raw text, as before
    digest = hashlib.sha256((tmp_path / "logs" / "u01" / "s.md").read_bytes()).hexdigest()
    assert logs["log_sha256"].to_list()[:2] == [digest, digest]


def test_code_the_scrubber_touched_in_the_log_still_anchors(tmp_path):
    code = (
        "// Omar Haddad, 2023123456, omar@example.org\n#include <stdio.h>\n"
        'const char *KEY = "sk-proj-AbCdEfGhIjKlMnOpQrStUv0123";\nint main(void) { puts("Haddad"); }'
    )
    write_log(
        tmp_path,
        "s.md",
        "**You:**\n\nI'm Omar Haddad, student no. 2023123456. pairsum, my code:\n\n"
        f"```c\n{code}\n```\n\n**Assistant:**\n\nLooks fine.\n",
    )
    logs, _ = read_logs(tmp_path, PROBLEMS)
    assert "// [name], [id], [email]\n" in logs["text"][0] and 'puts("[name]")' in logs["text"][0]
    table = build_contexts(pl.DataFrame([attempt("a", "pairsum", 1, code)], schema=ATTEMPT_SCHEMA), logs)
    row = pick(table, "a", "nonblind")
    assert row["provenance"] == "anchored"
    assert row["context"] == "user: I'm [name], student no. [id]. pairsum, my code:\n\n```c\n"  # strictly before


def test_find_code_is_exact_outside_placeholders():
    log = "user: x\n\n[name] wrote int n = 100005; [id]\n"
    assert find_code(log, "Mara Lindqvist wrote int n = 100005; 2023123456") == 9
    assert find_code(log, "Mara wrote int n = 200005; 2023123456") is None  # a literal number must match
    assert find_code(log, "Mara wrote int m = 100005; 2023123456") is None
    assert find_code(log, "") is None


CRLF_PROBLEMS = {"crlf": "Pair Sums", "pairsum": "Pair Sums", "coins": "Coin Change", "brackets": "Brackets"}


@pytest.mark.parametrize(
    ("text", "problems", "expected"),
    [
        # the report's case: a problem `crlf` (the same statement with CRLF line endings) shares pairsum's name,
        # and comes first in the problems' order; the record names pairsum by its id
        ("Problem Pair Sums (pairsum): A small trading desk logged the profit", CRLF_PROBLEMS, "pairsum"),
        ("The judge said Time Limit Exceeded for Pair Sums (pairsum).", CRLF_PROBLEMS, "pairsum"),
        # a shared name alone names neither problem
        ("how do I speed up Pair Sums?", CRLF_PROBLEMS, None),
        # an id that is also a word: as written, it names its problem; in another case, only when nothing else does
        ("my output has CRLF line endings in pairsum", {**PROBLEMS, "crlf": "Line Endings"}, "pairsum"),
        ("Pair Sums: my output has CRLF line endings", {**PROBLEMS, "crlf": "Line Endings"}, "pairsum"),
        ("why does crlf fail?", {**PROBLEMS, "crlf": "Line Endings"}, "crlf"),
        ("CRLF again", {**PROBLEMS, "crlf": "Line Endings"}, "crlf"),
        # two problems named the same way: the one named first in the text, not first in the problems' order
        ("coins is done, now pairsum", PROBLEMS, "coins"),
        ("pairsum is done, now coins", PROBLEMS, "pairsum"),
        ("Coin Change works; Pair Sums does not", PROBLEMS, "coins"),
        ("no problem named here", PROBLEMS, None),
    ],
)
def test_a_record_is_tagged_with_the_problem_it_names_most_strongly_and_first(tmp_path, text, problems, expected):
    write_log(tmp_path, "a.md", f"**You:**\n\n{text}\n")
    logs, _ = read_logs(tmp_path, problems)
    assert logs["problem_id"].to_list() == [expected]
    assert logs["problem_named"].to_list() == [expected is not None]


def test_contexts_from_the_columns_they_read_in_batches_of_one_participant(monkeypatch):
    """participant_context reads only CONTEXT_ATTEMPT_COLUMNS of the attempts and turns its rows into frames
    CONTEXT_BATCH rows at a time: on the demo corpus (its chat logs: anchored, segmented and prefix contexts), the
    pruned attempts in batches of one participant give the same table as every column at once."""
    from cojudge_assets.core.ingest import context as context_module
    from cojudge_assets.core.ingest.corpus import contest_settings, read_corpus, read_problem_table

    root = Path(__file__).resolve().parents[2] / "data" / "demo"
    problems = read_problem_table(root, "pages")
    tables = read_corpus(root, "pages", dict(zip(problems["problem_id"], problems["name"])), contest_settings(root))
    whole = build_contexts(tables.attempts, tables.prompt_logs)
    assert set(whole.filter(pl.col("condition") == "nonblind")["provenance"]) >= {"anchored", "segmented"}
    monkeypatch.setattr(context_module, "CONTEXT_BATCH", 1)
    pruned = tables.attempts.select(context_module.CONTEXT_ATTEMPT_COLUMNS)
    assert build_contexts(pruned, tables.prompt_logs).equals(whole)
