"""Judge requests built from the ingest tables: one per attempt and condition, no label inside."""

from __future__ import annotations

import json

import polars as pl

from cojudge_assets.core.constants import CONDITIONS
from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.context import build_contexts, read_logs
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.core.ingest.problems import problems_table
from cojudge_assets.core.judging.requests import build_requests, label_leaks, write_jsonl
from cojudge_tests.conftest import REPO

DEMO = REPO / "data" / "demo"


def demo_tables():
    problems = problems_table(DEMO / "problems")
    rules = PageRules(set(problems["problem_id"]), contest_settings(DEMO).vocabulary)
    attempts, _ = read_attempts(DEMO, list_pages(DEMO), rules)
    logs, _ = read_logs(DEMO, dict(zip(problems["problem_id"], problems["name"])))
    return attempts, problems, build_contexts(attempts, logs)


def test_requests_on_the_demo_corpus(tmp_path):
    attempts, problems, contexts = demo_tables()
    tables = {c: build_requests(attempts, problems, contexts, c) for c in CONDITIONS}
    for table in tables.values():
        assert table.height == attempts.height and table["attempt_uid"].n_unique() == attempts.height
        assert label_leaks(table, attempts, problems, contexts).is_empty()
        # the code sent is the attempt's code, row by row
        joined = table.join(attempts.select("attempt_uid", "code"), on="attempt_uid")
        assert (joined["source_code"] == joined["code"]).all()
        for r in table.head(3).iter_rows(named=True):
            request = json.loads(r["request_json"])
            assert set(request) == {"problem_id", "problem_statement", "language", "source_code", "prompt_text"}
            assert "## Constraints" in request["problem_statement"]
    assert (tables["blind"]["context_chars"] == 0).all()
    assert tables["nonblind"]["context_chars"].max() <= 12_000
    # conditions differ only in the context, so their hashes differ exactly where the context does
    differ = (
        tables["blind"]
        .join(tables["nonblind"], on="attempt_uid")
        .filter(pl.col("request_hash") != pl.col("request_hash_right"))
    )
    assert differ.height == tables["nonblind"].filter(pl.col("context_chars") > 0).height
    path = tmp_path / "requests.jsonl"
    assert write_jsonl(pl.concat(tables.values()), path) == 3 * attempts.height
    first = json.loads(path.read_text().splitlines()[0])
    assert set(first) == {"attempt_uid", "condition", "request_hash", "prompt_version", "request"}


def test_a_leaked_label_is_found():
    attempts, problems, contexts = demo_tables()
    one = attempts.head(2)
    # a pipeline bug that writes the Result string into the language field
    buggy = one.with_columns((pl.col("language_label") + " / " + pl.col("result")).alias("language_label"))
    leaks = label_leaks(build_requests(buggy, problems, contexts, "blind"), buggy, problems, contexts)
    assert sorted(leaks["attempt_uid"].to_list()) == sorted(one["attempt_uid"].to_list())
