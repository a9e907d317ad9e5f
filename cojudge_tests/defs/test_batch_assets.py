"""judge_outputs in batch mode through Dagster: the same table as the synchronous path on a synthetic corpus, the
batch state and the estimate in the partition's metadata, and a budget stop the command reports as such."""

from __future__ import annotations

import json

import dagster as dg
import duckdb
import pytest

from cojudge_assets.definitions import build_definitions
from cojudge_assets.driver import run_steps
from cojudge_tests.defs.test_judging_assets import materializations
from cojudge_tests.judges.batch_loopback import BatchLoopbackServer
from cojudge_tests.judges.fixtures import write_judges_file, write_synthetic_progsnap2
from cojudge_tests.judges.loopback import LoopbackServer
from cojudge_tests.judges.test_batch import answer

pytestmark = pytest.mark.slow  # the run loop over the whole graph

KEY = "sk-batch-assets-key-0a1b2c3d4e5f-never-stored"
COLUMNS = "attempt_uid, condition, judge, status, p_accept, s_algo, s_robust, rationale, raw_response"
PRICE = "{input_usd_per_mtok: 2.0, output_usd_per_mtok: 8.0}"
POLLS = "{poll_initial_s: 0.01, poll_max_s: 0.02, max_requests: 7}"


def judge_corpus(tmp_path, name: str, api_base: str, corpus, layout="progsnap2", jobs=None, **judge):
    db = tmp_path / f"{name}.duckdb"
    judges = write_judges_file(tmp_path / f"{name}.yaml", api_base, price=PRICE, **judge)
    defs = build_definitions(corpus=corpus, layout=layout, database=db, judges_path=judges)
    instance = dg.DagsterInstance.ephemeral()
    outcome = run_steps(defs, instance, {}, judges=["loop"], conditions=["blind"], jobs=jobs, echo=lambda line: None)
    return outcome, instance, db


def table(db) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.sql(f"select {COLUMNS} from main.judge_outputs order by attempt_uid").fetchall()


def test_batch_mode_gives_the_synchronous_judge_outputs(tmp_path, monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 15)
    with BatchLoopbackServer(answer=answer) as batch_server:
        outcome, instance, batch_db = judge_corpus(
            tmp_path, "batch", batch_server.api_base, corpus, mode="batch", batch=POLLS
        )
        assert outcome, outcome.line()
        assert batch_server.creates == 3 and batch_server.lines == 15  # 7 + 7 + 1
    meta = materializations(instance, "judge_outputs")["blind|loop"]
    assert meta["batch_state"] == "completed" and meta["batches_submitted"] == 3 and meta["valid_rows"] == 15
    assert meta["estimate_requests_to_send"] == 15 and meta["estimate_price_source"] == "judges file (price:)"
    assert meta["batch_cost_usd"] > 0 and meta["estimate_batch_usd"] > meta["batch_cost_usd"]
    with LoopbackServer() as sync_server:
        sync_server.script, sync_server.answer = [("ok", "")], answer
        outcome, _, sync_db = judge_corpus(tmp_path, "sync", sync_server.api_base, corpus)
        assert outcome, outcome.line()
    batch_rows, sync_rows = table(batch_db), table(sync_db)
    assert len(batch_rows) == 15 and len({r[5] for r in batch_rows}) > 1  # answers differ by request
    assert batch_rows == sync_rows


def test_the_demo_judged_in_batch_mode_gives_the_synchronous_judge_outputs(tmp_path, monkeypatch):
    from cojudge_assets.settings import DEFAULT_LAYOUT, default_corpus

    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    # the local steps the answers need, and the answers: no sandboxed step
    jobs = ("ingest", "judge_requests_job", "judge_outputs_job")
    demo = {"corpus": default_corpus(), "layout": DEFAULT_LAYOUT, "jobs": jobs}
    with BatchLoopbackServer(answer=answer) as batch_server:
        outcome, _, batch_db = judge_corpus(tmp_path, "batch", batch_server.api_base, **demo, mode="batch", batch=POLLS)
        assert outcome, outcome.line()
        created = list(batch_server.batches.values())
        sent = [line["custom_id"] for batch in created for line in batch["lines"]]
        returned = [
            json.loads(line)["custom_id"]
            for batch in created
            for line in batch_server.files[batch["object"]["output_file_id"]].decode().splitlines()
        ]
    assert batch_server.creates == -(-len(sent) // 7) and len(sent) == len(set(sent)) > 7
    assert returned != sent and sorted(returned) == sorted(sent)  # every result, out of order
    with LoopbackServer() as sync_server:
        sync_server.script, sync_server.answer = [("ok", "")], answer
        outcome, _, sync_db = judge_corpus(tmp_path, "sync", sync_server.api_base, **demo)
        assert outcome, outcome.line()
    batch_rows, sync_rows = table(batch_db), table(sync_db)
    assert len(batch_rows) == len(sent) and len({r[5] for r in batch_rows}) > 1
    assert batch_rows == sync_rows


@pytest.mark.parametrize("mode", ["batch", "sync"])
def test_a_budget_stop_is_what_the_command_reports(tmp_path, monkeypatch, mode):
    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 15)
    with BatchLoopbackServer(answer=answer) as server:
        outcome, _, _ = judge_corpus(
            tmp_path, "b", server.api_base, corpus, mode=mode, batch=POLLS, max_cost_usd=0.000001
        )
        # a stop, not a failure: the command ends with exit code 4 (cli.py), for either mode
        assert not outcome and outcome.only_stopped, outcome.line()
        assert "stopped at the budget: judge loop" in outcome.stops[0]
        assert server.uploads == 0 and server.chat_requests == []  # nothing sent


def test_the_batch_sensor_completes_a_pending_batch_partition(tmp_path, monkeypatch):
    from cojudge_assets.defs.partitions import condition_judge_key

    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    with BatchLoopbackServer(answer=answer) as server:
        db = tmp_path / "s.duckdb"
        judges = write_judges_file(
            tmp_path / "s.yaml", server.api_base, price=PRICE, mode="batch", batch="{wait: false, poll_initial_s: 0.01}"
        )
        defs = build_definitions(corpus=corpus, layout="progsnap2", database=db, judges_path=judges)
        instance = dg.DagsterInstance.ephemeral()
        outcome = run_steps(defs, instance, {}, judges=["loop"], conditions=["blind"], echo=lambda line: None)
        assert not outcome and outcome.only_stopped and "pending at the provider" in outcome.stops[0]
        assert server.creates == 1
        sensor = defs.get_sensor_def("pending_batches")

        def evaluate():
            with dg.build_sensor_context(
                instance=instance, definitions=defs, resources=dict(defs.resources)
            ) as context:
                return sensor.evaluate_tick(context)

        requested = evaluate().run_requests
        assert [r.partition_key for r in requested] == [condition_judge_key("blind", "loop")]
        server.finish_all()  # the provider completes the batch overnight
        job = defs.resolve_job_def("judge_outputs_job")
        result = job.execute_in_process(instance=instance, partition_key=requested[0].partition_key)
        assert result.success and server.creates == 1  # collected, never submitted again
        meta = materializations(instance, "judge_outputs")["blind|loop"]
        assert meta["batch_state"] == "completed" and meta["valid_rows"] == 6
        assert evaluate().skip_message == "no batch pending at a provider"


def test_the_command_says_it_stopped_at_the_budget_and_the_next_run_continues(tmp_path):
    from cojudge_tests.judges.fixtures import cli

    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    with BatchLoopbackServer(answer=answer) as server:
        common = dict(db=tmp_path / "c.duckdb", home=tmp_path / "home", extra_env={"LOOPBACK_KEY": KEY})
        args = ["materialize", "--corpus", str(corpus), "--layout", "progsnap2", "--judge", "loop"]
        args += ["--condition", "blind"]
        tight = write_judges_file(
            tmp_path / "tight.yaml", server.api_base, price=PRICE, mode="batch", batch=POLLS, max_cost_usd=0.000001
        )
        stopped = cli(args, judges=tight, **common)
        last = stopped.stdout.strip().splitlines()[-1]
        assert stopped.returncode == 4, stopped.stdout + stopped.stderr
        assert last.startswith("STOPPED AT THE BUDGET: tables in") and server.uploads == 0
        assert "stopped at the budget: judge loop" in stopped.stdout
        loose = write_judges_file(tmp_path / "loose.yaml", server.api_base, price=PRICE, mode="batch", batch=POLLS)
        done = cli(args, judges=loose, **common)
        assert done.returncode == 0, done.stdout + done.stderr
        assert server.creates == 1 and server.lines == 6


def two_partitions_one_budget(tmp_path, monkeypatch, server, conditions: list[str]):
    """The synthetic corpus's requests built (nothing sent) and a run budget with room for one partition's batch
    (each fits alone, two do not): (defs, instance, db, limit)."""
    from cojudge_assets.judges.config import load_judges
    from cojudge_assets.judges.estimate import RUN_BUDGET_VARIABLE, estimate_database

    corpus = write_synthetic_progsnap2(tmp_path / "corpus", 6)
    db = tmp_path / "r.duckdb"
    # expected output tokens as the loopback server answers (20): each batch's estimate near its actual cost
    judges = write_judges_file(
        tmp_path / "r.yaml", server.api_base, price=PRICE, mode="batch", batch=POLLS, expected_output_tokens=20
    )
    defs = build_definitions(corpus=corpus, layout="progsnap2", database=db, judges_path=judges)
    instance = dg.DagsterInstance.ephemeral()
    assert run_steps(defs, instance, {}, jobs=("ingest", "judge_requests_job"), echo=lambda line: None)
    estimates = {e.condition: e.batch_usd for e in estimate_database(db, load_judges(judges), conditions)}
    limit = max(estimates.values()) + 0.5 * min(estimates.values())
    monkeypatch.setenv(RUN_BUDGET_VARIABLE, str(limit))
    return defs, instance, db, limit


def test_the_run_budget_holds_across_the_partitions_one_command_launches(tmp_path, monkeypatch):
    from cojudge_assets.judges.estimate import RUN_BUDGET_VARIABLE, RUN_TAG

    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    conditions = ["blind", "nonblind"]
    with BatchLoopbackServer(answer=answer) as server:
        # each partition (one batch) fits the run budget alone; the second of one run does not
        defs, instance, db, limit = two_partitions_one_budget(tmp_path, monkeypatch, server, conditions)
        judging = {"judges": ["loop"], "conditions": conditions, "jobs": ("judge_outputs_job",)}
        outcome = run_steps(defs, instance, {}, **judging, echo=lambda line: None)
        assert not outcome and outcome.only_stopped and len(outcome.stops) == 1
        assert "judge loop under nonblind: stopped at the budget" in outcome.stops[0]
        assert f"{RUN_BUDGET_VARIABLE}, summed over every partition of the run" in outcome.stops[0]
        assert server.creates == 1 and server.lines == 6  # blind's batch; nothing of nonblind was sent
        runs = [r for r in instance.get_runs() if dg.AssetKey("judge_outputs") in (r.asset_selection or ())]
        assert {r.tags[RUN_TAG] for r in runs} == {outcome.run_key}  # both partitions' runs: one budget
        again = run_steps(defs, instance, {}, **judging, echo=lambda line: None)  # the next command: its own budget
        assert again, again.line()
        assert server.creates == 2 and server.lines == 12
        assert sorted(server.custom_ids) == sorted(set(server.custom_ids))  # no request sent twice
    with duckdb.connect(str(db), read_only=True) as con:
        rows = con.sql("select condition, count(*), count(distinct attempt_uid) from main.judge_outputs group by 1")
        assert sorted(rows.fetchall()) == [("blind", 6, 6), ("nonblind", 6, 6)]
        budgets = con.sql("select run_key, reserved_usd, spent_usd from main.run_budgets").fetchall()
    assert {key for key, _, _ in budgets} == {outcome.run_key, again.run_key}
    assert all(reserved == 0 and 0 < spent <= limit for _, reserved, spent in budgets)


def test_runs_without_the_command_tag_as_the_daemon_launches_share_the_days_run_budget(tmp_path, monkeypatch):
    """Runs launched as the daemon launches them (no cojudge/run tag, a run id each): the second partition's run,
    and its retry, spend from the same day's run budget as the first, so retrying never spends it again."""
    from datetime import UTC, datetime

    from cojudge_assets.defs.partitions import condition_judge_key
    from cojudge_assets.judges.estimate import RUN_TAG, window_key

    monkeypatch.setenv("LOOPBACK_KEY", KEY)
    with BatchLoopbackServer(answer=answer) as server:  # a budget for one partition a day, not two
        defs, instance, db, limit = two_partitions_one_budget(tmp_path, monkeypatch, server, ["blind", "nonblind"])
        job = defs.resolve_job_def("judge_outputs_job")

        def daemon_run(condition: str):
            key = condition_judge_key(condition, "loop")
            return job.execute_in_process(instance=instance, partition_key=key, raise_on_error=False)

        day = window_key("day", datetime.now(UTC))
        assert daemon_run("blind").success and server.creates == 1
        for _ in range(2):  # the stopped partition, and the daemon's retry after its backoff
            stopped = daemon_run("nonblind")
            assert not stopped.success and server.creates == 1 and server.lines == 6
        runs = [r for r in instance.get_runs() if r.job_name == "judge_outputs_job" and RUN_TAG not in r.tags]
        assert len(runs) == 3
    with duckdb.connect(str(db), read_only=True) as con:
        budgets = con.sql("select run_key, reserved_usd, spent_usd from main.run_budgets").fetchall()
    if day == window_key("day", datetime.now(UTC)):  # not across midnight: one row, the day's
        assert [key for key, _, _ in budgets] == [day]
        assert budgets[0][1] == 0 and 0 < budgets[0][2] <= limit
