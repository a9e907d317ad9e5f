"""Judge requests built from the ingest tables: one per attempt and condition, no label inside."""

from __future__ import annotations

import json

import polars as pl
import pytest

from cojudge_assets.core.constants import CONDITIONS
from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.context import build_contexts, read_logs
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.core.ingest.problems import problems_table
from cojudge_assets.core.judging.requests import (
    REQUEST_INPUT_COLUMNS,
    build_condition,
    build_requests,
    label_leaks,
    write_jsonl,
)
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


@pytest.mark.parametrize("chunk_rows", [1, 7, 10_000])
def test_the_sliced_build_is_the_whole_build(tmp_path, chunk_rows):
    """build_condition, slice by slice from the pruned inputs the asset loads, gives the table build_requests gives
    (row for row, in order), the leaks label_leaks finds, and write_jsonl's file byte for byte."""
    attempts, problems, contexts = demo_tables()
    shuffled = attempts.sample(fraction=1.0, shuffle=True, seed=7)  # the input's order does not matter
    pruned = {
        "attempts": shuffled.select(REQUEST_INPUT_COLUMNS["attempts"]),
        "problems": problems.select(REQUEST_INPUT_COLUMNS["problems"]),
        "participant_context": contexts.select(REQUEST_INPUT_COLUMNS["participant_context"]),
    }
    for condition in CONDITIONS:
        whole = build_requests(attempts, problems, contexts, condition)
        write_jsonl(whole, tmp_path / f"whole.{condition}.jsonl")
        built = build_condition(
            pruned["attempts"],
            pruned["problems"],
            pruned["participant_context"],
            condition,
            tmp_path / f"sliced.{condition}.jsonl",
            chunk_rows=chunk_rows,
        )
        assert built.table.equals(whole)
        assert built.leaks.is_empty() and built.lines == attempts.height
        sliced = (tmp_path / f"sliced.{condition}.jsonl").read_bytes()
        assert sliced == (tmp_path / f"whole.{condition}.jsonl").read_bytes()
        assert not (tmp_path / f"sliced.{condition}.jsonl.partial").exists()


def test_the_sliced_build_finds_a_leak_in_any_slice(tmp_path):
    attempts, problems, contexts = demo_tables()
    ordered = attempts.sort("attempt_uid")
    leaking = ordered["attempt_uid"][[0, 5, ordered.height - 1]].to_list()  # first, middle and last slices
    buggy = ordered.with_columns(
        pl.when(pl.col("attempt_uid").is_in(leaking))
        .then(pl.col("language_label") + " / " + pl.col("result"))
        .otherwise(pl.col("language_label"))
        .alias("language_label")
    )
    built = build_condition(buggy, problems, contexts, "blind", tmp_path / "r.jsonl", chunk_rows=4)
    assert built.leaks["attempt_uid"].to_list() == leaking
    assert built.leaks.equals(
        label_leaks(build_requests(buggy, problems, contexts, "blind"), buggy, problems, contexts)
    )


def test_a_failed_sliced_build_leaves_the_previous_file(tmp_path):
    attempts, problems, contexts = demo_tables()
    path = tmp_path / "r.jsonl"
    path.write_text("previous\n")
    broken = attempts.with_columns(
        pl.when(pl.int_range(pl.len()) == 9).then(None).otherwise(pl.col("code")).alias("code")
    )
    with pytest.raises(Exception, match="source_code"):  # the request model refuses a missing code
        build_condition(broken, problems, contexts, "blind", path, chunk_rows=4)
    assert path.read_text() == "previous\n" and not path.with_name("r.jsonl.partial").exists()


def test_no_attempt_gives_empty_tables_with_their_schemas(tmp_path):
    attempts, problems, contexts = demo_tables()
    built = build_condition(attempts.head(0), problems, contexts, "nonblind", tmp_path / "r.jsonl")
    assert built.table.is_empty() and built.leaks.is_empty() and built.lines == 0
    assert built.table.schema == build_requests(attempts, problems, contexts, "nonblind").schema
    assert (tmp_path / "r.jsonl").read_text() == ""
