"""Batch mode (judges/batch.py) against the loopback batch server (cojudge_tests/judges/batch_loopback.py): the
same answers as the synchronous path, every scenario of a batch's life ending with every row stored once and the
right rows sent again, resume without a second create, the budget and the refusals."""

from __future__ import annotations

import json

import duckdb
import polars as pl
import pytest

from cojudge_assets.judges.batch import BatchApi
from cojudge_assets.judges.config import JudgesConfigError, JudgeSpec, load_judges
from cojudge_assets.judges.runner import judge_partition
from cojudge_assets.judges.store import CACHE_TABLE, KEY
from cojudge_tests.judges.batch_loopback import BatchLoopbackServer
from cojudge_tests.judges.loopback import LoopbackServer
from cojudge_tests.judges.test_runner import requests_table

KEY_VALUE = "sk-batch-test-key-0123456789-never-stored"
PRICE = {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0}
ANSWER_COLUMNS = ["attempt_uid", "status", "p_accept", "s_algo", "s_robust", "rationale", "raw_response"]


def answer(body: dict) -> str:
    """A valid answer that depends on the request (its code's number), so a mixed-up custom_id would show."""
    code = body["messages"][-1]["content"]
    digit = next((int(c) for c in reversed(code) if c.isdigit()), 0)
    return json.dumps({"p_accept": digit / 10, "s_algo": 1 + digit % 5, "s_robust": 3, "rationale": f"r{digit}"})


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    with BatchLoopbackServer(answer=answer) as s:
        yield s


def spec(api_base: str, **overrides) -> JudgeSpec:
    batch = {"poll_initial_s": 0.01, "poll_max_s": 0.02, **overrides.pop("batch", {})}
    return JudgeSpec.model_validate(
        {
            "name": "loop",
            "model": "openai/loopback-model-1",
            "api_base": api_base,
            "api_key_env": "LOOPBACK_KEY",
            "timeout_s": 5.0,
            "concurrency": 2,
            "mode": "batch",
            "batch": batch,
            "price": PRICE,
            **overrides,
        }
    )


def run(api_base, table, conn, **overrides):
    return judge_partition(spec(api_base, **overrides), "blind", table, conn, backoff=(0.01, 0.05))


def cache(conn) -> pl.DataFrame:
    return conn.execute(f"select * from main.{CACHE_TABLE} order by attempt_uid").pl()


def test_batch_mode_gives_the_synchronous_answers_from_results_out_of_order(server, tmp_path):
    table = requests_table(7)
    conn = duckdb.connect(str(tmp_path / "batch.duckdb"))
    stats = run(server.api_base, table, conn, batch={"max_requests": 3})
    rows = cache(conn)
    assert server.creates == 3 and server.lines == 7  # split at 3 requests a file
    assert len(rows) == 7 and rows.select(KEY).n_unique() == 7 and set(rows["status"]) == {"ok"}
    # the output files list results in another order than the input (the server reverses them)
    first_output = server.files[server.batches["batch-0002"]["object"]["output_file_id"]].decode().splitlines()
    assert [json.loads(line)["custom_id"].split("|")[3] for line in first_output] == ["a002", "a001", "a000"]
    assert rows["batch_id"].null_count() == 0 and all("input=file-" in f for f in rows["batch_files"])
    assert stats.batch.submitted == 3 and stats.batch.collected == 3

    with LoopbackServer() as sync_server:
        sync_conn = duckdb.connect(str(tmp_path / "sync.duckdb"))
        texts = [answer({"messages": [{"content": f"print({i})\n"}]}) for i in range(7)]
        sync_server.script = [("ok", t) for t in texts]
        judge_partition(
            spec(sync_server.api_base, mode="sync", concurrency=1), "blind", table, sync_conn, backoff=(0.01, 0.05)
        )
        sync_rows = cache(sync_conn)
    assert rows.select(ANSWER_COLUMNS).equals(sync_rows.select(ANSWER_COLUMNS))
    assert KEY_VALUE not in json.dumps(rows.to_dicts(), default=str)


def ids_sent(server: BatchLoopbackServer, batch: int) -> list[str]:
    """The attempt_uids of the batch created ``batch``-th (0-based), in file order."""
    created = list(server.batches.values())[batch]
    return [line["custom_id"].split("|")[3] for line in created["lines"]]


def ledger(conn) -> pl.DataFrame:
    return conn.execute("select * from main.judge_batches order by created_at").pl()


@pytest.mark.parametrize("scenario", ["expired", "cancelled"])
def test_an_ended_batch_keeps_its_answers_and_resubmits_only_the_rest(server, tmp_path, scenario):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.scenarios, server.partial = [scenario], 2  # the first batch answers its first 2 lines, then ends
    stats = run(server.api_base, requests_table(5), conn)
    rows = cache(conn)
    assert len(rows) == 5 and rows.select(KEY).n_unique() == 5 and set(rows["status"]) == {"ok"}
    assert server.creates == 2 and ids_sent(server, 1) == ["a002", "a003", "a004"]  # only what had no answer
    assert stats.batch.resubmitted == 3 and server.chat_requests == []
    assert ledger(conn)["status"].to_list() == ["collected", "collected"]
    first = rows.filter(pl.col("attempt_uid").is_in(["a000", "a001"]))["batch_id"].unique().to_list()
    assert first == ["batch-0002"]  # the answers the ended batch kept carry its id


def test_error_lines_and_invalid_answers_are_re_asked_under_the_retry_rule(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(4)
    server.error_ids = {f"loop|blind|0|a001|{table['request_hash'][1]}"}
    bad = {"count": 0}

    def invalid_once_for_a002(body: dict) -> str:
        if "print(2)" in body["messages"][-1]["content"] and bad["count"] == 0:
            bad["count"] += 1
            return '{"p_accept": 3, "s_algo": 4, "s_robust": 3, "rationale": "out of range"}'
        return answer(body)

    server.answer = invalid_once_for_a002
    stats = run(server.api_base, table, conn)
    rows = cache(conn)
    assert len(rows) == 4 and set(rows["status"]) == {"ok"} and server.creates == 1
    assert len(server.chat_requests) == 2 and stats.batch.retried_sync == 2  # a001 (error line), a002 (invalid)
    by_uid = {r["attempt_uid"]: r for r in rows.to_dicts()}
    assert (by_uid["a001"]["tries"], by_uid["a001"]["provider_errors"]) == (2, 1)
    assert (by_uid["a002"]["tries"], by_uid["a002"]["validation_failures"]) == (2, 1)
    assert by_uid["a000"]["tries"] == 1 and by_uid["a002"]["batch_id"] == "batch-0002"


def test_error_lines_fail_when_no_try_is_left(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    server.error_ids = {f"loop|blind|0|a000|{table['request_hash'][0]}"}
    run(server.api_base, table, conn, max_tries=1)
    rows = cache(conn)
    assert rows["status"].to_list() == ["failed", "ok", "ok"] and server.chat_requests == []
    assert "scripted line error" in rows["error"][0]


def test_a_failed_batch_fails_its_rows_with_no_charge_and_the_next_run_sends_them(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    server.scenarios = ["failed"]
    run(server.api_base, table, conn)
    rows = cache(conn)
    assert len(rows) == 3 and set(rows["status"]) == {"failed"} and server.creates == 1
    assert all("scripted failure" in e for e in rows["error"]) and rows["cost"].null_count() == 3
    record = ledger(conn).to_dicts()[0]
    assert (record["status"], record["cost_usd"]) == ("collected_failed", 0.0)
    run(server.api_base, table, conn)  # the next run sends the failed rows again
    rows = cache(conn)
    assert len(rows) == 3 and set(rows["status"]) == {"ok"} and server.creates == 2


def test_a_malformed_result_line_is_kept_with_its_line_number_and_its_request_resubmitted(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.malformed_line = '{"custom_id": "loop|blind|0|a0'
    stats = run(server.api_base, requests_table(3), conn)
    rows = cache(conn)
    assert len(rows) == 3 and set(rows["status"]) == {"ok"} and stats.batch.malformed_lines == 1
    notes = ledger(conn)["note"].to_list()
    assert "line 2: not a result line" in notes[0] and server.creates == 2 and len(ids_sent(server, 1)) == 1


def test_polls_honour_retry_after_and_repeated_failures_fail_only_that_batch(server, tmp_path):
    waits: list[float] = []
    server.busy_polls, server.retry_after = 2, 7
    api = BatchApi(spec(server.api_base), sleep=waits.append)
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    run(server.api_base, requests_table(2), conn, batch={"wait": False})
    batch_id = ledger(conn)["batch_id"][0]
    server.polls[batch_id] = 0
    ended = api.poll(batch_id, deadline=None)
    assert ended.status == "completed" and waits[:2] == [7.0, 7.0]  # Retry-After, not the 0.01 s backoff
    assert all(w <= 0.02 for w in waits[2:])

    server.busy_polls, server.retry_after = 10**6, 0
    second = requests_table(4).tail(2)
    run(server.api_base, second, conn, batch={"poll_failures": 3})
    rows = cache(conn).filter(pl.col("attempt_uid").is_in(["a002", "a003"]))
    assert set(rows["status"]) == {"failed"} and all("failed 3 time(s) in a row" in e for e in rows["error"])
    open_batches = ledger(conn).filter(pl.col("status") == "submitted")
    assert len(open_batches) == 2 and server.creates == 2  # kept (the first run's too): the next run polls them
    server.busy_polls = 0
    creates = server.creates
    run(server.api_base, second, conn)
    assert server.creates == creates and set(cache(conn)["status"]) == {"ok"}


def test_an_upload_whose_batch_id_was_lost_is_found_not_created_again(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    run(server.api_base, table, conn, batch={"wait": False})
    assert server.creates == 1
    conn.execute("update main.judge_batches set status = 'uploading', batch_id = null")  # killed before storing it
    run(server.api_base, table, conn)
    assert server.creates == 1 and len(cache(conn)) == 3 and set(cache(conn)["status"]) == {"ok"}
    assert ledger(conn)["batch_id"].to_list() == ["batch-0002"]


def test_downloading_the_same_output_twice_writes_no_duplicate(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    run(server.api_base, table, conn)
    conn.execute("update main.judge_batches set status = 'completed'")  # as if killed before marking it collected
    conn.execute(f"update main.{CACHE_TABLE} set status = 'failed' where attempt_uid = 'a000'")
    run(server.api_base, table, conn)
    rows = cache(conn)
    assert len(rows) == 3 and set(rows["status"]) == {"ok"} and server.creates == 1
    assert server.downloads.count(server.batches["batch-0002"]["object"]["output_file_id"]) == 2


def test_batch_mode_is_refused_where_litellm_cannot_create_batches(tmp_path):
    path = tmp_path / "judges.yaml"
    path.write_text(
        "judges:\n"
        "  - {name: claude, model: anthropic/claude-sonnet-4-5-20250929, api_key_env: ANTHROPIC_API_KEY, mode: batch}\n"
        "  - {name: gem, model: gemini/gemini-2.5-pro, api_key_env: GEMINI_API_KEY, mode: batch}\n"
        "  - {name: rubric, model: cojudge/static-rubric, mode: batch}\n"
        "  - {name: fine, model: openai/gpt-4o-mini, api_key_env: OPENAI_API_KEY, mode: batch}\n"
    )
    with pytest.raises(JudgesConfigError) as refused:
        load_judges(path)
    lines = refused.value.lines
    assert len(lines) == 3
    assert "judge claude: field 'mode'" in lines[0] and "litellm cannot create Anthropic batches" in lines[0]
    assert "judge gem: field 'mode'" in lines[1] and "'gemini'" in lines[1]
    assert "judge rubric: field 'mode'" in lines[2]


CHILD = """
import sys, duckdb, polars as pl
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.runner import judge_partition
spec = JudgeSpec.model_validate_json(sys.argv[1])
table = pl.read_parquet(sys.argv[2])
judge_partition(spec, "blind", table, duckdb.connect(sys.argv[3]))
"""


@pytest.mark.slow  # a judging process of its own, killed
def test_a_run_killed_between_create_and_download_resumes_with_one_create_per_chunk(server, tmp_path):
    import os
    import signal
    import subprocess
    import sys
    import time

    table = requests_table(5)
    table.write_parquet(tmp_path / "requests.parquet")
    db = tmp_path / "c.duckdb"
    # polls an hour apart: the child creates its batches, then waits on the first poll, where it is killed
    slow = spec(server.api_base, batch={"max_requests": 2, "poll_initial_s": 3600, "poll_max_s": 3600})
    child = subprocess.Popen(
        [sys.executable, "-c", CHILD, slow.model_dump_json(), str(tmp_path / "requests.parquet"), str(db)],
        env={**os.environ, "LOOPBACK_KEY": KEY_VALUE},
    )
    try:
        deadline = time.monotonic() + 600
        while server.creates < 3 and time.monotonic() < deadline and child.poll() is None:
            time.sleep(0.2)
        assert server.creates == 3, "the child did not create its 3 batches"
        time.sleep(1.0)  # its ledger update after the last create
        os.kill(child.pid, signal.SIGKILL)
    finally:
        child.wait()
    assert server.downloads == []  # killed before any download
    conn = duckdb.connect(str(db))
    stats = run(server.api_base, table, conn, batch={"max_requests": 2})
    rows = cache(conn)
    assert server.creates == 3 and server.lines == 5  # exactly one create per chunk, no request sent twice
    assert len(rows) == 5 and rows.select(KEY).n_unique() == 5 and set(rows["status"]) == {"ok"}
    assert stats.batch.submitted == 0 and stats.batch.collected == 3


def test_batch_mode_on_the_postgres_store_resumes_and_resubmits_as_on_duckdb(server, postgres):
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    store = PostgresStore(libpq_url(postgres.create_database("batch_mode").url))
    try:
        table = requests_table(4)
        server.scenarios, server.partial = ["expired"], 1
        judge_partition(spec(server.api_base, batch={"wait": False}), "blind", table, store)
        assert server.creates == 1
        judge_partition(spec(server.api_base), "blind", table, store)  # polls the stored batch, then the rest
        rows = store.partition_rows(table, "loop", "blind", 0)
        assert len(rows) == 4 and set(rows["status"]) == {"ok"} and rows["batch_id"].null_count() == 0
        assert server.creates == 2 and ids_sent(server, 1) == ["a001", "a002", "a003"]
        statuses = sorted(r["status"] for r in store.batch_ledger().all_batches("loop"))
        assert statuses == ["collected", "collected"]
    finally:
        store.close()


def test_a_partition_that_returns_early_shows_its_batches_submitted_or_in_progress_with_counts(server, tmp_path):
    from cojudge_assets.defs.judging.assets import partition_batch_metadata

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.busy_polls = 1  # the one poll of the first run is refused: the batch is known as submitted only
    stats = run(server.api_base, requests_table(3), conn, batch={"wait": False})
    state = partition_batch_metadata(stats)
    assert state["batch_state"] == "submitted (batch-0002: submitted 0/3 done, 0 failed)"
    assert state["batches_pending"] == 1 and state["estimate_requests_to_send"] == 3
    stats = run(server.api_base, requests_table(3), conn, batch={"wait": False})  # polled: now in progress
    state = partition_batch_metadata(stats)
    assert state["batch_state"] == "in_progress (batch-0002: in_progress 0/3 done, 0 failed)"
    assert stats.batch.submitted == 0 and server.creates == 1
    stats = run(server.api_base, requests_table(3), conn)  # waits: finalizing, completed, collected
    assert partition_batch_metadata(stats)["batch_state"] == "completed" and len(cache(conn)) == 3


def test_files_split_at_the_count_and_the_byte_limits_and_an_oversized_request_is_named():
    from cojudge_assets.judges.batch import chunks

    lines = [({"custom_id": f"c{i}"}, b"x" * (100 if i != 3 else 300) + b"\n") for i in range(6)]
    sizes = [[item["custom_id"] for item, _ in chunk] for chunk in chunks(lines, max_requests=4, max_bytes=350)]
    assert sizes == [["c0", "c1", "c2"], ["c3"], ["c4", "c5"]]  # bytes split before c3, and before c4 (301 + 101)
    assert [len(c) for c in chunks(lines[:3], max_requests=2, max_bytes=10**6)] == [2, 1]
    with pytest.raises(ValueError, match=r"request c3: its batch line is 301 bytes, over batch.max_bytes \(200\)"):
        list(chunks(lines, max_requests=10, max_bytes=200))


def test_a_request_over_the_byte_limit_is_a_failed_row_and_the_rest_is_judged(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    long_code = table["request_json"][1].replace("print(1)", "print(1)" + "#" * 3000)
    table = table.with_columns(
        pl.when(pl.col("attempt_uid") == "a001")
        .then(pl.lit(long_code))
        .otherwise(pl.col("request_json"))
        .alias("request_json")
    )
    run(server.api_base, table, conn, batch={"max_bytes": 2500})
    rows = cache(conn)
    assert rows["status"].to_list() == ["ok", "failed", "ok"] and server.lines == 2
    assert "over batch.max_bytes (2500) of judge loop; inputs are never shortened" in rows["error"][1]


def test_a_result_line_of_a_known_request_in_the_wrong_shape_is_invalid_with_its_line_and_re_asked(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(3)
    cid = f"loop|blind|0|a001|{table['request_hash'][1]}"
    server.malformed_line = json.dumps({"custom_id": cid, "response": "not an object", "error": None})
    stats = run(server.api_base, table, conn, max_tries=1)
    rows = cache(conn)
    assert rows["status"].to_list() == ["ok", "failed", "ok"] and stats.batch.malformed_lines == 1
    assert (
        "invalid answer: output file file-0006" in rows["error"][1]
        and "line 2: malformed result line" in rows["error"][1]
    )
    assert "line 2: malformed result line" in ledger(conn)["note"][0] and server.creates == 1
    run(server.api_base, table, conn)  # the next run re-asks it (a batch of one)
    assert set(cache(conn)["status"]) == {"ok"} and server.creates == 2


def test_a_batch_answer_without_the_score_its_request_asked_for_is_re_asked_and_the_score_stored(server, tmp_path):
    """A result line carries no request: the batch layer looks the request up by its key, so an answer without the
    0-5 score a graded request asked for is invalid (as on the synchronous path) and re-asked, not stored with a
    null score; a request that did not ask for it is answered without one."""
    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import SYSTEM_WITH_SCORE, canonical_json, request_hash

    rows = []
    for i in range(4):
        request = JudgeRequest(
            problem_id="p1",
            problem_statement="Print the number.",
            language="Python",
            source_code=f"print({i})\n",
            ask_score=i < 3,  # a003 does not ask for the score
        )
        rows.append(
            {"attempt_uid": f"a{i:03d}", "request_hash": request_hash(request), "request_json": canonical_json(request)}
        )
    seen: set[str] = set()

    def score_only_when_asked_again(body: dict) -> str:
        code = body["messages"][-1]["content"]
        text = json.loads(answer(body))
        if body["messages"][0]["content"] == SYSTEM_WITH_SCORE and code in seen:
            text["score"] = 4  # the re-ask's answer carries it
        seen.add(code)
        return json.dumps(text)

    server.answer = score_only_when_asked_again
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    stats = run(server.api_base, pl.DataFrame(rows), conn)
    stored = {r["attempt_uid"]: r for r in cache(conn).to_dicts()}
    assert server.creates == 1 and len(server.chat_requests) == 3 and stats.batch.retried_sync == 3
    assert [stored[f"a{i:03d}"]["score"] for i in range(4)] == [4, 4, 4, None]
    assert {stored[f"a{i:03d}"]["status"] for i in range(4)} == {"ok"}
    assert [stored[f"a{i:03d}"]["validation_failures"] for i in range(4)] == [1, 1, 1, 0]
