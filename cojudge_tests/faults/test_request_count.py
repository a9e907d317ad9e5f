"""The request count a judging run reports is what the judge's server received: a request that fails before it is
sent (a NaN in the body, no key) counts 0 however often it is retried; retried and re-asked requests that reach
the server count each time."""

from __future__ import annotations

import asyncio

import pytest

from cojudge_assets.judges.client import JudgeCall, JudgeConfig, judge_once
from cojudge_tests.judges.loopback import LoopbackServer
from cojudge_tests.judges.test_client import GOOD, KEY, MESSAGES


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    with LoopbackServer() as s:
        yield s


def run(server: LoopbackServer, script: list[tuple], **config) -> JudgeCall:
    server.script = list(script)
    judge = JudgeConfig(
        name="loopback",
        model="openai/loopback-model-1",
        api_base=server.api_base,
        **{"api_key_env": "LOOPBACK_KEY", "timeout_s": 5.0, "transient_retries": 2, **config},
    )
    return asyncio.run(judge_once(judge, MESSAGES, backoff_initial_s=0.01, backoff_max_s=0.05))


def test_a_nan_temperature_sends_nothing_and_says_so(server):
    # the judges file refuses NaN at preflight (test_judges_file_bounds); this is the request path's own count
    call = run(server, [("ok", GOOD)], temperature=float("nan"))
    assert call.status == "failed" and len(server.requests) == 0
    assert call.sent == 0


def test_a_missing_key_sends_nothing(server, monkeypatch):
    monkeypatch.delenv("LOOPBACK_KEY")
    call = run(server, [("ok", GOOD)], api_key_env="LOOPBACK_KEY")
    assert call.status == "failed" and call.sent == len(server.requests) == 0


@pytest.mark.parametrize(
    "script",
    [
        [("ok", GOOD)],
        [("status", 429, None), ("status", 500, None), ("ok", GOOD)],
        [("status", 503, None)],  # retries exhausted: each retry reached the server
        [("ok", '{"p_accept": 7'), ("ok", GOOD)],  # a re-ask after an invalid answer
        [("status", 400, None)],
    ],
)
def test_every_request_the_server_received_is_counted(server, script):
    call = run(server, script)
    assert call.sent == len(server.requests) > 0


@pytest.mark.parametrize(
    ("script", "received"),
    [
        ([("status", 500, None), ("ok", GOOD)], 4),  # one 500, then three answers
        # the report's case (printed 3, the server received 6): three answers cut short, then three answers
        ([("truncated", GOOD), ("truncated", GOOD), ("truncated", GOOD), ("ok", GOOD)], 6),
    ],
)
def test_the_partition_reports_what_the_server_received(server, tmp_path, script, received):
    """Through the runner: requests_sent (what the command prints) equals the server's count, rows judged apart."""
    import duckdb
    import polars as pl

    from cojudge_assets.judges.config import JudgeSpec
    from cojudge_assets.judges.runner import judge_partition
    from cojudge_tests.judges.test_runner import requests_table

    requests = requests_table(3)
    server.script = list(script)
    spec = JudgeSpec(
        name="loopback",
        model="openai/loopback-model-1",
        api_base=server.api_base,
        api_key_env="LOOPBACK_KEY",
        transient_retries=3,  # enough for a row that meets every cut-short answer: each row ends judged
    )
    conn = duckdb.connect(str(tmp_path / "judge.duckdb"))
    try:
        stats = judge_partition(spec, "blind", requests, conn, backoff=(0.01, 0.05))
    finally:
        conn.close()
    assert isinstance(requests, pl.DataFrame) and stats.sent == 3 and stats.failed == 0
    assert stats.requests_sent == len(server.requests) == received


@pytest.mark.parametrize(
    "script",
    [
        [("truncated", GOOD)],  # every answer cut short: retries exhausted, each reached the server
        [("truncated", GOOD), ("truncated", GOOD), ("ok", GOOD)],
        [("truncated", GOOD), ("status", 500, None), ("ok", GOOD)],
        [("drop",), ("truncated", GOOD), ("ok", GOOD)],  # a connection closed with no answer reached it too
    ],
)
def test_a_request_whose_answer_came_back_truncated_is_counted(server, script):
    # the report: printed 3, the server received 6 (a body cut short is a read error after the request went out);
    # one try of two attempts at most: a cut body costs the client about 2 s here
    call = run(server, script, max_tries=1, transient_retries=2)
    assert call.sent == len(server.requests) > 0
