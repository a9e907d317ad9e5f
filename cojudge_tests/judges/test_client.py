"""The one judge path against a scripted loopback OpenAI-compatible server: every fault ends in a
valid or a recorded-failed answer, retries are bounded, keys stay out of the record."""

from __future__ import annotations

import asyncio
import json

import pytest

from cojudge_assets.core.judging.models import JudgeRequest
from cojudge_assets.core.judging.prompts import render
from cojudge_assets.judges.client import JudgeCall, JudgeConfig, judge_once
from cojudge_tests.judges.loopback import LoopbackServer

GOOD = json.dumps({"p_accept": 0.7, "s_algo": 4, "s_robust": 3, "rationale": "fine"})
MESSAGES = render(JudgeRequest(problem_id="p", problem_statement="Print 1.", language="C", source_code="int main(){}"))
KEY = "sk-test-loopback-key-should-never-be-stored"


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
        api_key_env="LOOPBACK_KEY",
        **{"timeout_s": 5.0, **config},
    )
    return asyncio.run(judge_once(judge, MESSAGES, backoff_initial_s=0.05, backoff_max_s=0.2))


def test_valid_answer(server):
    call = run(server, [("ok", GOOD)])
    assert (call.status, call.tries, call.validation_failures, call.provider_errors) == ("ok", 1, 0, 0)
    assert call.output.p_accept == 0.7 and call.served_model.endswith("loopback-model-1")
    assert (call.input_tokens, call.output_tokens) == (11, 7)
    sent = server.requests[0]
    assert sent["temperature"] == 0 and sent["response_format"] == {"type": "json_object"}
    headers = {k.lower(): v for k, v in server.headers_seen[0].items()}
    assert headers["authorization"] == f"Bearer {KEY}"  # the key reaches the provider only
    assert KEY not in repr(call)


@pytest.mark.parametrize(
    "bad",
    [
        '{"p_accept": 0.7, "s_algo": 4',  # truncated JSON
        f"```json\n{GOOD}\n```",  # fenced (strict mode)
        json.dumps({"p_accept": 1.7, "s_algo": 4, "s_robust": 3, "rationale": "x"}),  # out of range
        json.dumps({"p_accept": 0.7, "s_algo": 4}),  # missing fields
    ],
)
def test_invalid_answer_reissues_the_identical_request(server, bad):
    call = run(server, [("ok", bad), ("ok", GOOD)])
    assert (call.status, call.tries, call.validation_failures) == ("ok", 2, 1)
    assert server.requests[0] == server.requests[1]


def test_lenient_mode_counts_a_repair(server):
    call = run(server, [("ok", f"Sure:\n```json\n{GOOD}\n```")], lenient=True)
    assert call.status == "ok" and call.repaired and call.tries == 1


def test_tries_are_bounded_and_the_failure_recorded(server):
    call = run(server, [("ok", "not json")], max_tries=3)
    assert (call.status, call.tries, call.validation_failures) == ("failed", 3, 3)
    assert call.error.startswith("invalid answer") and call.raw_text == "not json"
    assert len(server.requests) == 3


def test_rate_limit_honours_retry_after(server):
    import time

    started = time.perf_counter()
    call = run(server, [("status", 429, 1), ("ok", GOOD)])
    assert call.status == "ok" and call.provider_errors == 1 and call.tries == 1
    assert time.perf_counter() - started >= 1.0  # waited as asked, not the 0.05 s backoff


@pytest.mark.parametrize("code", [500, 503])
def test_server_errors_are_retried(server, code):
    call = run(server, [("status", code, None), ("status", code, None), ("ok", GOOD)])
    assert call.status == "ok" and call.provider_errors == 2


def test_timeouts_are_retried(server):
    call = run(server, [("sleep", 3.0, GOOD), ("ok", GOOD)], timeout_s=1.0)
    assert call.status == "ok" and call.provider_errors == 1


def test_transient_retries_are_bounded(server):
    call = run(server, [("status", 500, None)], transient_retries=2)
    assert call.status == "failed" and "retries exhausted" in call.error
    assert len(server.requests) == 3


@pytest.mark.parametrize("code", [401, 400])
def test_auth_and_bad_request_fail_fast(server, code):
    call = run(server, [("status", code, None), ("ok", GOOD)])
    assert call.status == "failed" and call.error.startswith("fatal error")
    assert len(server.requests) == 1 and KEY not in call.error


def test_served_model_identity_is_recorded(server):
    call = run(server, [("model", "loopback-model-2", GOOD)])
    assert call.served_model.endswith("loopback-model-2") and call.system_fingerprint == "fp_loopback"


def test_local_judge_takes_the_same_path(judge):
    from cojudge_assets.judges.local import register_local_judges

    register_local_judges(judge)
    config = JudgeConfig(name="static-rubric", model="cojudge/static-rubric", json_mode=False)
    bounded = render(
        JudgeRequest(
            problem_id="p", problem_statement="1 <= n <= 100. Print n.", language="C", source_code="int main(){}"
        )
    )
    call = asyncio.run(judge_once(config, bounded))
    assert call.status == "ok" and call.served_model.endswith("static-rubric") and call.cost is None
    # "Print 1." states nothing static-rubric checks: it abstains, a final answer that is not re-asked
    call = asyncio.run(judge_once(config, MESSAGES))
    assert call.status == "abstained" and call.output is None and call.error == ""
    assert "writes no bound on its input" in call.abstain_reason
    assert (call.tries, call.validation_failures) == (1, 0)


def test_cost_comes_from_litellms_price_table(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    with LoopbackServer(model="gpt-4o-mini") as priced:
        priced.script = [("ok", GOOD)]
        call = run(priced, [("ok", GOOD)])
    # 11 prompt and 7 completion tokens at gpt-4o-mini's list price
    assert call.cost == pytest.approx(11 * 0.15e-6 + 7 * 0.6e-6)


def test_an_unpriced_model_has_no_cost(server):
    assert run(server, [("ok", GOOD)]).cost is None  # loopback-model-1 is in no price table
