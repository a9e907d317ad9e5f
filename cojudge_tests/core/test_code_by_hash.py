"""Measurement holds no program text (issue 33): the identical resubmissions of the consistency table are found by
the attempts' ``code_sha256``, and the predictions' V4 check and program sizes come from the requests' code hashed
and counted before the join. On the demo corpus's attempts both give what the text gave."""

from __future__ import annotations

import hashlib

import numpy as np
import polars as pl
import pytest
from polars.testing import assert_frame_equal

from cojudge_assets.core.design.bias import code_size_columns
from cojudge_assets.core.ingest.attempts import PageRules, list_pages, read_attempts
from cojudge_assets.core.ingest.corpus import contest_settings
from cojudge_assets.core.ingest.kattis import read_problems
from cojudge_assets.core.measurement.measure import _consistency
from cojudge_assets.core.measurement.predictions import PREDICTIONS_READ, predictions_table
from cojudge_tests.conftest import REPO

DEMO = REPO / "data" / "demo"
CONDITIONS = ("blind", "nonblind")


@pytest.fixture(scope="module")
def attempts() -> pl.DataFrame:
    rules = PageRules(set(read_problems(DEMO / "problems")), contest_settings(DEMO).vocabulary)
    found, _ = read_attempts(DEMO, list_pages(DEMO), rules)
    return found


def _answers(attempts: pl.DataFrame) -> pl.DataFrame:
    """Two judges' answers under two conditions on every attempt, p on a coarse grid (some moves are zero)."""
    rng = np.random.default_rng(3)
    n = len(attempts)
    return pl.concat(
        attempts.select(
            "attempt_uid",
            "participant",
            "problem_id",
            "turn",
            "code",
            "code_sha256",
            judge=pl.lit(judge),
            condition=pl.lit(condition),
            p_accept=pl.Series(np.round(rng.random(n), 1)),
        )
        for judge in ("judge-a", "judge-b")
        for condition in CONDITIONS
    )


def test_identical_resubmissions_by_hash_are_those_by_text_on_the_demo(attempts):
    answers = _answers(attempts)
    by_hash = _consistency(answers.drop("code"))
    by_text = _consistency(answers.drop("code_sha256").rename({"code": "code_sha256"}))  # the text as the key
    assert_frame_equal(by_hash, by_text)
    found = by_hash.filter(pl.col("metric") == "identical_resubmissions")["value"]
    assert len(found) == 4 and found.min() > 0  # the demo has identical resubmissions: the comparison is not empty


def test_distinct_texts_are_never_identical_resubmissions():
    # one trajectory whose texts differ by one character at each turn, then one repeated exactly
    texts = ["print(1)", "print(1) ", "print(1)\n", "print(1)\n"]
    frame = pl.DataFrame(
        {
            "judge": "j",
            "condition": "blind",
            "participant": "p",
            "problem_id": "q",
            "turn": [1, 2, 3, 4],
            "p_accept": [0.1, 0.2, 0.3, 0.7],
            "code_sha256": [hashlib.sha256(t.encode()).hexdigest() for t in texts],
        }
    )
    table = {row["metric"]: row["value"] for row in _consistency(frame).iter_rows(named=True)}
    assert table["identical_resubmissions"] == 1.0
    assert table["max_abs_move"] == pytest.approx(0.4)


def _frames(attempts: pl.DataFrame, requests_code: list[str]) -> dict[str, pl.DataFrame]:
    outputs = _answers(attempts).select(
        "attempt_uid",
        "judge",
        "condition",
        "p_accept",
        s_algo=pl.lit(3),
        s_robust=pl.lit(3),
        request_hash=pl.concat_str(pl.lit("h-"), "condition", pl.lit("-"), "attempt_uid"),
        served_model=pl.col("judge"),
        status=pl.lit("ok"),
    )
    requests = pl.concat(
        attempts.select(
            "attempt_uid",
            condition=pl.lit(condition),
            request_hash=pl.lit(f"h-{condition}-") + pl.col("attempt_uid"),
            source_code=pl.Series(requests_code),
        )
        for condition in CONDITIONS
    )
    contexts = attempts.select("attempt_uid", condition=pl.lit("nonblind"), provenance=pl.lit("anchored"))
    return {
        "judge_outputs": outputs,
        "judge_requests": requests,
        "attempts": attempts.select(PREDICTIONS_READ["attempts"]),
        "participant_context": contexts,
    }


def test_the_predictions_sizes_and_v4_check_are_those_of_the_attempts_text_on_the_demo(attempts):
    assert "code" not in PREDICTIONS_READ["attempts"]  # no reader of predictions loads the attempts' text
    code = attempts["code"].to_list()
    altered = 5  # one request whose code is not its attempt's (a trailing space)
    sent = [c + " " if i == altered else c for i, c in enumerate(code)]
    table = predictions_table(_frames(attempts, sent), with_hash=True)
    lines, tokens = code_size_columns(pl.col("code"))
    expected = attempts.select("attempt_uid", "code_sha256", lines, tokens)
    got = table.join(expected, on="attempt_uid", suffix="_text")
    assert len(got) == len(table) == 4 * len(attempts)
    assert got["code_sha256"].equals(got["code_sha256_text"])
    unaltered = got.filter(pl.col("attempt_uid") != attempts["attempt_uid"][altered])
    assert unaltered["code_matches"].all()
    assert unaltered["code_lines"].equals(unaltered["code_lines_text"])
    assert unaltered["code_tokens"].equals(unaltered["code_tokens_text"])
    assert got.filter(pl.col("attempt_uid") == attempts["attempt_uid"][altered])["code_matches"].not_().all()
    assert "code" not in table.columns and "source_code" not in table.columns
