"""judge_requests and judge_outputs as Dagster assets: partitions, checks, metadata, resume and zero-call re-runs,
a partition that fails clearly, keys kept out of every stored byte, and a real process kill mid-partition."""

from __future__ import annotations

import json
import os
import signal
import time

import dagster as dg
import duckdb
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.judges.fixtures import cli, write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer

GOOD = json.dumps({"p_accept": 0.6, "s_algo": 3, "s_robust": 4, "rationale": "plausible"})
KEY = "sk-assets-test-key-9f8e7d6c5b4a-never-stored"


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    with LoopbackServer() as s:
        s.script = [("ok", GOOD)]
        yield s


def setup(tmp_path, monkeypatch, server, n=30, local=False, **judge):
    monkeypatch.setenv("COJUDGE_DUCKDB", str(tmp_path / "j.duckdb"))
    monkeypatch.setenv(
        "COJUDGE_JUDGES", str(write_judges_file(tmp_path / "judges.yaml", server.api_base, local=local, **judge))
    )
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", n)
    config = {"resources": {"corpus": {"config": {"path": str(corpus), "layout": "progsnap2"}}}}
    return build_definitions(), dg.DagsterInstance.ephemeral(), config


def materializations(instance, key: str) -> dict[str, dict]:
    records = instance.fetch_materializations(dg.AssetKey(key), limit=100).records
    latest = {}
    for record in sorted(records, key=lambda r: r.storage_id):
        m = record.asset_materialization
        latest[m.partition] = {k: v.value for k, v in m.metadata.items()}
    return latest


def check_results(instance, check: str, asset: str) -> list[bool]:
    key = dg.AssetCheckKey(dg.AssetKey(asset), check)
    records = instance.event_log_storage.get_asset_check_execution_history(key, limit=100)
    return [r.event.dagster_event.event_specific_data.passed for r in records if r.event]


def test_graph_judges_every_partition_and_a_rerun_sends_nothing(tmp_path, monkeypatch, server, capfd):
    defs, instance, config = setup(tmp_path, monkeypatch, server, n=30, local=True)
    assert run_steps(defs, instance, config, echo=lambda line: None)
    con = duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True)
    counts = dict(
        con.sql(
            "select condition || '|' || judge || '|' || status, count(*) from main.judge_outputs group by 1"
        ).fetchall()
    )
    # the synthetic corpus has no statements: static-rubric has nothing to check and abstains on every attempt,
    # with its reason, and its partitions pass (an abstention is an answer)
    assert counts == {
        f"{c}|{j}": 30 for c in ("blind", "nonblind", "prefix12k") for j in ("loop|ok", "static-rubric|abstained")
    }
    reasons = con.sql("select distinct rationale from main.judge_outputs where status = 'abstained'").fetchall()
    assert len(reasons) == 1 and "there is no problem statement" in reasons[0][0]
    assert con.sql("select count(*) from main.judge_requests").fetchone()[0] == 90
    con.close()
    assert len(server.requests) == 90  # loop judged each request of each condition once
    meta = materializations(instance, "judge_outputs")
    assert meta["blind|loop"]["judged_now"] == 30 and meta["blind|loop"]["valid_first_receipt"] == 30
    assert meta["blind|static-rubric"]["abstained"] == 30 and meta["blind|static-rubric"]["valid_rows"] == 0
    assert meta["blind|loop"]["abstained"] == 0
    assert meta["blind|loop"]["served_models"] == ["loopback-model-1"] or all(
        m.endswith("loopback-model-1") for m in meta["blind|loop"]["served_models"]
    )
    assert all(check_results(instance, "no_label_in_requests", "judge_requests"))
    assert len(check_results(instance, "one_valid_row_per_attempt", "judge_outputs")) == 6
    assert all(check_results(instance, "one_valid_row_per_attempt", "judge_outputs"))
    for condition in ("blind", "prefix12k", "nonblind"):
        lines = (tmp_path / "requests" / f"judge_requests.{condition}.jsonl").read_text().splitlines()
        assert len(lines) == 30 and all("verdict" not in json.loads(line)["request"] for line in lines)

    # the measurement group ran on top: every judge x condition has its coverage, the answered ones are scored,
    # the code check passed
    con = duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True)
    cells = con.sql("select count(distinct judge || condition) from main.judge_metrics").fetchone()[0]
    assert cells == 6 and con.sql("select count(*) from main.predictions").fetchone()[0] == 90
    coverage = dict(
        con.sql(
            "select judge || '|' || metric, value from main.judge_metrics "
            "where condition = 'blind' and metric in ('coverage', 'abstained')"
        ).fetchall()
    )
    assert coverage == {
        "loop|coverage": 1.0,
        "loop|abstained": 0,
        "static-rubric|coverage": 0.0,
        "static-rubric|abstained": 30,
    }
    assert (
        con.sql(
            "select count(*) from main.judge_metrics where metric = 'roc_auc' and judge = 'static-rubric'"
        ).fetchone()[0]
        == 0
    )
    con.close()
    assert all(check_results(instance, "judged_code_is_attempt_code", "predictions"))
    assert (tmp_path / "measurement" / "roc_nonblind.png").stat().st_size > 0

    # an unchanged re-run runs nothing (Dagster's data versions say every step is up to date) and says so
    lines = []
    outcome = run_steps(build_definitions(), instance, config, echo=lines.append)
    assert outcome and outcome.ran == 0 and outcome.requests_sent == 0
    assert lines and all(line.endswith("up to date, skipped") for line in lines)
    assert outcome.line().startswith("nothing changed")
    assert len(server.requests) == 90
    # forced, every partition runs again and answers from the cache alone
    lines = []
    assert run_steps(build_definitions(), instance, config, echo=lines.append, force=True)
    assert len(server.requests) == 90
    assert sum("judged now 0, from cache 30" in line for line in lines) == 6
    meta = materializations(instance, "judge_outputs")
    assert all(m["judged_now"] == 0 and m["cached"] == 30 for m in meta.values())

    # the key reached the provider only: not the tables, not the requests files, not the logs
    headers = {k.lower(): v for k, v in server.headers_seen[0].items()}
    assert headers["authorization"] == f"Bearer {KEY}"
    for path in tmp_path.rglob("*"):
        if path.is_file():
            assert KEY.encode() not in path.read_bytes(), path
    out, err = capfd.readouterr()
    assert KEY not in out + err
    logs = "".join(str(e.user_message) for e in instance.all_logs(instance.get_runs()[0].run_id))
    assert KEY not in logs


def test_failed_rows_fail_the_partition_and_a_rerun_sends_only_them(tmp_path, monkeypatch, server):
    defs, instance, config = setup(tmp_path, monkeypatch, server, n=12, max_tries=2)
    server.script = [*[("ok", GOOD)] * 9, ("ok", "no json here")]  # the last 3 rows never answer validly
    lines = []
    outcome = run_steps(defs, instance, config, conditions=["blind"], echo=lines.append)
    # counted from the failed partition too: what the server received, the 3 failed rows' re-asks included
    assert not outcome and outcome.requests_sent == len(server.requests) == 9 + 3 * 2
    failure = lines[-1]
    assert "FAILED" in failure and "3 of 12 rows failed" in failure and "materialize the partition again" in failure
    con = duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True)
    assert dict(con.sql("select status, count(*) from main.judge_cache group by 1").fetchall()) == {
        "ok": 9,
        "failed": 3,
    }
    con.close()
    sent = len(server.requests)
    server.script = [("ok", GOOD)]
    assert run_steps(
        build_definitions(), instance, config, conditions=["blind"], jobs=("judge_outputs_job",), echo=lines.append
    )
    assert len(server.requests) - sent == 3 and "judged now 3, from cache 9" in lines[-1]
    con = duckdb.connect(str(tmp_path / "j.duckdb"), read_only=True)
    assert con.sql(
        "select count(*), count(distinct attempt_uid) from main.judge_outputs where status = 'ok'"
    ).fetchone() == (12, 12)
    assert con.sql("select count(*) from main.judge_cache").fetchone()[0] == 12  # replaced, not duplicated


def test_a_missing_key_fails_clearly_before_any_call(tmp_path, monkeypatch, server):
    defs, instance, config = setup(tmp_path, monkeypatch, server, n=6, key_env="COJUDGE_TEST_UNSET_KEY")
    monkeypatch.delenv("COJUDGE_TEST_UNSET_KEY", raising=False)
    lines = []
    assert not run_steps(defs, instance, config, conditions=["blind"], echo=lines.append)
    assert "COJUDGE_TEST_UNSET_KEY" in lines[-1] and "is not set" in lines[-1]
    assert server.requests == []


def test_a_killed_run_loses_no_saved_row_and_the_rerun_sends_only_the_rest(tmp_path):
    n = 160
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", n)
    db, home = tmp_path / "k.duckdb", tmp_path / "home"
    with LoopbackServer(delay_s=0.05) as server:
        server.script = [("ok", GOOD)]
        judges = write_judges_file(tmp_path / "judges.yaml", server.api_base, concurrency=2)
        env = {"LOOPBACK_KEY": KEY}
        base = ["materialize", "--corpus", str(corpus), "--layout", "progsnap2", "--condition", "blind"]
        done = cli([*base, "--jobs", "ingest,judge_requests_job"], db=db, judges=judges, home=home, extra_env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]

        run = cli([*base, "--jobs", "judge_outputs_job"], db=db, judges=judges, home=home, popen=True, extra_env=env)
        deadline = time.time() + 300
        while len(server.requests) < 60 and time.time() < deadline and run.poll() is None:
            time.sleep(0.02)
        os.killpg(run.pid, signal.SIGKILL)  # a real kill, mid-partition
        run.wait(timeout=30)
        assert run.returncode == -signal.SIGKILL
        sent_before_kill = server.settle()  # a request on the wire at the kill is recorded after it

        con = duckdb.connect(str(db))
        saved = con.sql("select attempt_uid, judged_at from main.judge_cache").fetchall()
        con.close()
        assert 40 <= len(saved) < n  # rows were saved as they arrived, and the run was cut short
        # lost at most: 2 in flight, and the answers of the last commit interval (0.5 s, at most 10 rows)
        assert len(saved) >= sent_before_kill - 2 - 10

        done = cli([*base, "--jobs", "judge_outputs_job"], db=db, judges=judges, home=home, extra_env=env)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        assert f"judged now {n - len(saved)}, from cache {len(saved)}" in done.stdout
        assert len(server.requests) - sent_before_kill == n - len(saved)

    con = duckdb.connect(str(db), read_only=True)
    after = dict(con.sql("select attempt_uid, judged_at from main.judge_cache").fetchall())
    assert len(after) == n and all(after[uid] == at for uid, at in saved)  # every saved row kept as it was
    assert con.sql("select count(*), count(distinct attempt_uid) from main.judge_outputs").fetchone() == (n, n)
