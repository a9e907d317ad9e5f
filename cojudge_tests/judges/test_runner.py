"""One partition judged against the scripted loopback server: faults end in one valid or one recorded-failed
row per request, nothing is duplicated, a re-run sends only what is missing or failed, the limits hold and the
key never reaches the cache."""

from __future__ import annotations

import json
import time

import duckdb
import polars as pl
import pytest

from cojudge_assets.core.judging.models import JudgeRequest
from cojudge_assets.core.judging.prompts import canonical_json, request_hash
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.runner import judge_partition
from cojudge_assets.judges.store import CACHE_TABLE, KEY, start_epoch
from cojudge_tests.judges.loopback import LoopbackServer

GOOD = json.dumps({"p_accept": 0.7, "s_algo": 4, "s_robust": 3, "rationale": "fine"})
KEY_VALUE = "sk-runner-test-key-0123456789-never-stored"


def requests_table(n: int) -> pl.DataFrame:
    rows = []
    for i in range(n):
        request = JudgeRequest(
            problem_id="p1", problem_statement="Print the number.", language="Python", source_code=f"print({i})\n"
        )
        rows.append(
            {"attempt_uid": f"a{i:03d}", "request_hash": request_hash(request), "request_json": canonical_json(request)}
        )
    return pl.DataFrame(rows)


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    with LoopbackServer() as s:
        yield s


def spec(server: LoopbackServer, **overrides) -> JudgeSpec:
    return JudgeSpec.model_validate(
        {
            "name": "loop",
            "model": "openai/loopback-model-1",
            "api_base": server.api_base,
            "api_key_env": "LOOPBACK_KEY",
            "timeout_s": 1.0,
            "concurrency": 1,
            **overrides,
        }
    )


def run(server, table, conn, script=None, **overrides):
    if script is not None:
        server.script = list(script)
    return judge_partition(spec(server, **overrides), "blind", table, conn, backoff=(0.01, 0.05))


def cache(conn) -> pl.DataFrame:
    return conn.execute(f"select * from main.{CACHE_TABLE} order by attempt_uid").pl()


def test_every_fault_ends_in_one_valid_or_failed_row(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(8)
    # concurrency 1: requests arrive in attempt order, each fault then its recovery
    script = [
        ("status", 429, 0),
        ("ok", GOOD),  # a0: rate limited, then valid
        ("status", 500, None),
        ("ok", GOOD),  # a1: server error, then valid
        ("sleep", 1.5, GOOD),
        ("ok", GOOD),  # a2: timeout, then valid
        ("ok", '{"p_accept": 0.7, "s_algo": 4'),
        ("ok", GOOD),  # a3: truncated JSON, re-asked
        ("ok", f"```json\n{GOOD}\n```"),
        ("ok", GOOD),  # a4: fenced (strict), re-asked
        ("ok", json.dumps({"p_accept": 2, "s_algo": 4, "s_robust": 3, "rationale": "x"})),
        ("ok", GOOD),
        ("model", "loopback-model-2", GOOD),  # a6: another served model
        ("ok", "not json"),
        ("ok", "not json"),
        ("ok", "not json"),
    ]  # a7: exhausts its 3 tries
    stats = run(server, table, conn, script)
    rows = cache(conn)
    assert len(rows) == 8 and rows.select(KEY).n_unique() == 8
    assert rows["status"].to_list() == ["ok"] * 7 + ["failed"]
    assert rows.filter(pl.col("attempt_uid") == "a007")["error"].item().startswith("invalid answer")
    assert rows.filter(pl.col("attempt_uid") == "a007")["tries"].item() == 3
    assert rows["validation_failures"].to_list() == [0, 0, 0, 1, 1, 1, 0, 3]
    assert rows["provider_errors"].to_list()[:3] == [1, 1, 1]
    assert rows.filter(pl.col("attempt_uid") == "a006")["served_model"].item().endswith("loopback-model-2")
    assert (stats.sent, stats.cached, stats.ok_first, stats.repaired, stats.failed) == (8, 0, 4, 3, 1)

    # the re-run sends only the failed row, which now answers validly
    before = len(server.requests)
    server.script = [("ok", GOOD)]
    stats = run(server, table, conn)
    assert len(server.requests) - before == 1 and (stats.sent, stats.cached) == (1, 7)
    rows = cache(conn)
    assert len(rows) == 8 and set(rows["status"]) == {"ok"}

    # and an unchanged re-run sends nothing at all
    before = len(server.requests)
    stats = run(server, table, conn)
    assert len(server.requests) == before and (stats.sent, stats.cached) == (0, 8)


def test_a_changed_request_is_a_new_row_and_the_old_one_stays(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.script = [("ok", GOOD)]
    run(server, requests_table(3), conn)
    changed = requests_table(4).tail(1).with_columns(pl.lit("a000").alias("attempt_uid"))
    stats = run(server, changed, conn)
    assert stats.sent == 1
    assert len(cache(conn).filter(pl.col("attempt_uid") == "a000")) == 2  # both request hashes kept


def test_a_new_epoch_rejudges_beside_the_old_rows(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.script = [("ok", GOOD)]
    table = requests_table(3)
    run(server, table, conn)
    start_epoch(conn, "loop", "served model changed")
    server.script = [("model", "loopback-model-9", GOOD)]
    stats = run(server, table, conn)
    assert stats.sent == 3
    rows = cache(conn)
    assert len(rows) == 6 and sorted(set(rows["epoch"])) == [0, 1]
    assert all(m.endswith("loopback-model-9") for m in rows.filter(pl.col("epoch") == 1)["served_model"])
    assert all(m.endswith("loopback-model-1") for m in rows.filter(pl.col("epoch") == 0)["served_model"])


def test_concurrency_limit_holds(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.script = [("sleep", 0.2, GOOD)]
    run(server, requests_table(12), conn, concurrency=4)
    assert server.max_in_flight == 4
    assert set(cache(conn)["status"]) == {"ok"}


def test_requests_per_minute_limit_holds(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.script = [("ok", GOOD)]
    started = time.perf_counter()
    run(server, requests_table(62), conn, concurrency=8, rpm=60)
    # aiolimiter lets a burst of 60 through, then one a second: the last two wait about two seconds
    assert time.perf_counter() - started >= 1.5
    assert len(server.requests) == 62


def test_over_budget_rows_fail_with_their_reason_and_are_never_sent(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    stats = run(server, requests_table(2), conn, max_input_tokens=20)
    assert len(server.requests) == 0 and stats.over_budget == 2
    rows = cache(conn)
    assert set(rows["status"]) == {"failed"}
    assert "over the input budget of 20 tokens" in rows["error"][0] and "never shortened" in rows["error"][0]


def test_authentication_error_stops_the_partition(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    stats = run(server, requests_table(20), conn, [("status", 401, None)], concurrency=2)
    assert stats.fatal_error and "AuthenticationError" in stats.fatal_error
    assert len(server.requests) <= 2  # one per worker in flight, never one per row


def test_the_key_reaches_the_provider_only(server, tmp_path, caplog, capfd):
    db = tmp_path / "c.duckdb"
    conn = duckdb.connect(str(db))
    server.script = [("ok", GOOD), ("status", 500, None)]
    run(server, requests_table(3), conn, transient_retries=1)
    headers = {k.lower(): v for k, v in server.headers_seen[0].items()}
    assert headers["authorization"] == f"Bearer {KEY_VALUE}"
    dump = cache(conn).write_csv()
    conn.close()
    assert KEY_VALUE not in dump
    assert KEY_VALUE.encode() not in db.read_bytes()
    wal = db.with_suffix(".duckdb.wal")
    assert not wal.exists() or KEY_VALUE.encode() not in wal.read_bytes()
    out, err = capfd.readouterr()
    assert KEY_VALUE not in out + err + caplog.text


def test_a_judge_edited_under_the_same_name_is_judged_again_in_a_new_epoch(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    server.script = [("ok", GOOD)]
    table = requests_table(3)
    assert run(server, table, conn).sent == 3
    # how fast or how often it is asked is not what it answers with: nothing is sent again
    assert run(server, table, conn, concurrency=4, rpm=600, timeout_s=2.0, max_tries=5).sent == 0
    assert run(server, table, conn, model="openai/loopback-model-2").sent == 3
    epochs = conn.execute("select epoch, reason from judge_epochs where judge = 'loop' order by epoch").fetchall()
    assert epochs == [(1, "judges file changed: model 'openai/loopback-model-1' -> 'openai/loopback-model-2'")]
    assert run(server, table, conn, model="openai/loopback-model-2").sent == 0
    assert run(server, table, conn, model="openai/loopback-model-2", temperature=0.7).sent == 3
    rows = cache(conn)
    assert len(rows) == 9 and sorted(set(rows["epoch"])) == [0, 1, 2]  # every epoch's answers kept


def test_freshness_sees_a_judge_the_judges_file_now_configures_otherwise(server, tmp_path):
    """The judge's data version in the judges_file source asset moves when the file changes its model."""
    from cojudge_assets.defs.versions import judges_file_versions
    from cojudge_assets.judges.config import load_judges

    judges = tmp_path / "judges.yaml"
    versions = []
    for model in ("openai/loopback-model-1", "openai/loopback-model-1", "openai/loopback-model-3"):
        judges.write_text(f"judges:\n  - name: loop\n    model: {model}\n    api_base: {server.api_base}\n")
        versions.append(judges_file_versions(load_judges(judges), {})["loop"])
    assert versions[0] == versions[1] != versions[2]


ABSTAIN = json.dumps({"abstain": "the statement gives no example to run"})


def test_an_abstention_is_stored_with_its_reason_and_never_sent_again(server, tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    table = requests_table(4)
    # concurrency 1: a0 abstains, a1 answers, a2 abstains in a shape that is not exactly an abstention (re-asked,
    # then abstains properly), a3 abstains from inside a code fence (strict: re-asked, then answers)
    script = [
        ("ok", ABSTAIN),
        ("ok", GOOD),
        ("ok", json.dumps({"abstain": "no examples", "p_accept": 0.5})),
        ("ok", ABSTAIN),
        ("ok", f"```json\n{ABSTAIN}\n```"),
        ("ok", GOOD),
    ]
    stats = run(server, table, conn, script)
    rows = cache(conn)
    assert rows["status"].to_list() == ["abstained", "ok", "abstained", "ok"]
    abstained = rows.filter(pl.col("status") == "abstained")
    assert abstained["rationale"].to_list() == ["the statement gives no example to run"] * 2
    assert abstained["error"].is_null().all() and abstained["p_accept"].is_null().all()
    assert abstained["s_algo"].is_null().all() and abstained["tries"].to_list() == [1, 2]
    assert rows["validation_failures"].to_list() == [0, 0, 1, 1]
    assert (stats.sent, stats.abstained, stats.failed, stats.ok_first, stats.repaired) == (4, 2, 0, 1, 1)

    # a re-run sends nothing: an abstention is a final answer, like a valid one
    before = len(server.requests)
    stats = run(server, table, conn, [("ok", GOOD)])
    assert len(server.requests) == before and (stats.sent, stats.cached, stats.abstained) == (0, 4, 0)


def test_a_local_judge_abstains_through_the_one_path(tmp_path):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    local = JudgeSpec.model_validate({"name": "static-rubric", "model": "cojudge/static-rubric", "concurrency": 1})
    table = requests_table(3)  # "Print the number.": no bound, no special answer
    stats = judge_partition(local, "blind", table, conn)
    rows = cache(conn)
    assert stats.abstained == 3 and set(rows["status"]) == {"abstained"}
    assert all("writes no bound on its input" in reason for reason in rows["rationale"])
    assert judge_partition(local, "blind", table, conn).cached == 3


def test_sample_exec_compiles_a_partitions_java_programs_in_one_batch_before_sending_them(tmp_path):
    from cojudge_assets.judges.local import SampleExecScorer
    from cojudge_tests.judges.fixtures import RecordingJudge

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    local = JudgeSpec.model_validate({"name": "sample-exec", "model": "cojudge/sample-exec", "concurrency": 2})
    codes = [
        f"public class Main {{ public static void main(String[] a) {{ System.out.println({i}); }} }}" for i in range(4)
    ]
    codes.append("public class Main { public static void main(String[] a) { System.out.println(4) } }")
    rows = []
    for i, code in enumerate(codes):  # no statement (a ConDefects-style corpus): compiled only
        request = JudgeRequest(problem_id="p1", problem_statement="", language="Java", source_code=code)
        rows.append(
            {"attempt_uid": f"a{i:03d}", "request_hash": request_hash(request), "request_json": canonical_json(request)}
        )
    judge = RecordingJudge(tmp_path / "compile-cache", workers=1)
    stats = judge_partition(local, "blind", pl.DataFrame(rows), conn, contest_judge=judge)
    # the five programs went to one precompile call before any request was sent; each request then found its
    # program compiled
    assert [sorted(code for _, code, _ in batch) for batch in judge.batches] == [sorted(codes)]
    assert judge.compiles == [("java", True)] * 5
    result = cache(conn)
    assert result["status"].to_list() == ["abstained"] * 4 + ["ok"] and stats.abstained == 4
    assert result["rationale"].to_list() == [SampleExecScorer.COMPILES_WITHOUT_EXAMPLES] * 4 + ["does not compile"]
    # a re-run sends nothing and compiles nothing
    assert judge_partition(local, "blind", pl.DataFrame(rows), conn, contest_judge=judge).cached == 5
    assert len(judge.batches) == 1


def test_a_new_version_of_the_local_judges_rejudges_an_older_database(tmp_path):
    from cojudge_assets.judges.local import LOCAL_JUDGES_VERSION

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    local = JudgeSpec.model_validate({"name": "static-rubric", "model": "cojudge/static-rubric", "concurrency": 1})
    table = requests_table(2)
    judge_partition(local, "blind", table, conn)
    # a database judged by the local judges before they had a version (they answered a constant then)
    settings = {k: v for k, v in local.answer_settings().items() if k != "local_judges_version"}
    conn.execute("update judge_settings set settings = ? where judge = 'static-rubric'", [json.dumps(settings)])
    stats = judge_partition(local, "blind", table, conn)
    assert stats.sent == 2
    reason = conn.execute("select reason from judge_epochs where judge = 'static-rubric'").fetchone()[0]
    assert reason == f"judges file changed: local_judges_version None -> {LOCAL_JUDGES_VERSION}"
