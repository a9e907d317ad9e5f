"""The cost before sending (judges/estimate.py, ``cojudge estimate``) and the budget that stops a batch run: the
estimate's input tokens against what the loopback batch server counted, the same figures with the network off, an
unpriced hosted model refused by name, and a budget stop that sends nothing past the budget and loses nothing."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
from pathlib import Path

import duckdb
import polars as pl
import pytest

from cojudge_assets.cli import main
from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.estimate import Budget, judge_prices
from cojudge_assets.judges.runner import judge_partition
from cojudge_assets.judges.store import CACHE_TABLE, KEY
from cojudge_tests.judges.batch_loopback import BatchLoopbackServer
from cojudge_tests.judges.test_batch import KEY_VALUE, answer, cache, requests_table

STATEMENT = (
    "Read n and then n integers. Print the length of the longest strictly increasing contiguous run, "
    "then the sum of that run. Constraints: 1 <= n <= 200000, |a_i| <= 10^9. "
)


def long_requests(n: int) -> pl.DataFrame:
    """Requests of a realistic size (a statement and a program of some hundreds of tokens)."""
    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import canonical_json, request_hash

    rows = []
    for i in range(n):
        code = "".join(
            f"def step_{k}(values):\n    return [v * {k + i} for v in values if v % {k + 2}]\n" for k in range(12)
        )
        request = JudgeRequest(
            problem_id="p1", problem_statement=STATEMENT * 3, language="Python", source_code=code + f"print({i})\n"
        )
        rows.append(
            {"attempt_uid": f"a{i:03d}", "request_hash": request_hash(request), "request_json": canonical_json(request)}
        )
    return pl.DataFrame(rows)


def judges_yaml(path: Path, api_base: str, model: str, **fields) -> Path:
    extra = "".join(f"    {k}: {v}\n" for k, v in fields.items())
    path.write_text(
        "judges:\n  - name: loop\n"
        f"    model: {model}\n    api_base: {api_base}\n    api_key_env: LOOPBACK_KEY\n    mode: batch\n" + extra
    )
    return path


def requests_db(path: Path, table: pl.DataFrame) -> Path:
    conn = duckdb.connect(str(path))
    frame = table.with_columns(pl.lit("blind").alias("condition"))  # noqa: F841 (read by DuckDB by name)
    conn.execute("create table main.judge_requests as select * from frame")
    conn.close()
    return path


@pytest.fixture()
def server(monkeypatch):
    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    with BatchLoopbackServer(answer=answer) as s:
        yield s


@pytest.mark.slow  # a cojudge process in a network namespace of its own
def test_the_estimate_is_within_5_percent_of_the_tokens_the_server_counted_and_the_same_offline(
    server, tmp_path, capsys
):
    table = long_requests(6)
    db = requests_db(tmp_path / "c.duckdb", table)
    judges = judges_yaml(tmp_path / "judges.yaml", server.api_base, "openai/gpt-4o-mini")
    assert main(["estimate", "--duckdb", str(db), "--judges-file", str(judges)]) == 0
    printed = capsys.readouterr().out
    assert server.creates == server.uploads == 0  # nothing sent
    line = printed.splitlines()[0]
    estimated = int(re.search(r"(\d+) input tokens", line).group(1))
    assert "6 of 6 requests to send" in line and "litellm 1.110.2 price map (gpt-4o-mini)" in line
    assert "3072 expected output tokens (max_tokens" in line  # 6 x 512: no answer stored yet

    # the same figures with the network off (a process in a network namespace of its own)
    if shutil.which("unshare") and subprocess.run(["unshare", "-rn", "true"], check=False).returncode == 0:
        offline = subprocess.run(
            [
                "unshare",
                "-rn",
                str(Path(sys.executable).parent / "cojudge"),
                "estimate",
                "--duckdb",
                str(db),
                "--judges-file",
                str(judges),
            ],
            capture_output=True,
            text=True,
            timeout=600,
            check=False,
        )
        assert offline.returncode == 0, offline.stderr
        assert offline.stdout == printed
    else:  # still offline in the sense that matters: the price map is the installed one (LITELLM_LOCAL_MODEL_COST_MAP)
        import os

        assert os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] == "True"

    # the same requests judged in batch mode: the server counts the tokens it received
    spec = JudgeSpec.model_validate(
        {
            "name": "loop",
            "model": "openai/gpt-4o-mini",
            "api_base": server.api_base,
            "api_key_env": "LOOPBACK_KEY",
            "mode": "batch",
            "batch": {"poll_initial_s": 0.01, "poll_max_s": 0.02},
        }
    )
    with duckdb.connect(str(db)) as conn:
        stats = judge_partition(spec, "blind", table, conn)
    assert server.lines == 6 and abs(estimated - server.prompt_tokens) / server.prompt_tokens < 0.05
    assert stats.estimate is not None and stats.estimate.input_tokens == estimated
    # the actual cost (litellm's batch cost calculation) stored beside the estimate
    with duckdb.connect(str(db)) as conn:
        record = conn.execute("select estimate_usd, cost_usd from main.judge_batches").fetchone()
        rows = conn.execute(f"select cost, input_tokens, output_tokens from main.{CACHE_TABLE}").pl()
    prices = judge_prices(spec)
    expected = (rows["input_tokens"] * prices.batch_input + rows["output_tokens"] * prices.batch_output).sum()
    assert record[1] == pytest.approx(expected) and record[1] > 0 and record[0] > record[1]


def test_an_unpriced_hosted_model_fails_the_estimate_naming_it(server, tmp_path, capsys):
    db = requests_db(tmp_path / "c.duckdb", requests_table(2))
    judges = judges_yaml(tmp_path / "judges.yaml", server.api_base, "openai/loopback-model-1")
    assert main(["estimate", "--duckdb", str(db), "--judges-file", str(judges)]) == 2
    err = capsys.readouterr().err
    assert "judge loop: model openai/loopback-model-1 has no price in litellm's price map" in err
    assert "allow_unpriced" in err and server.uploads == 0
    priced = judges_yaml(tmp_path / "j2.yaml", server.api_base, "openai/loopback-model-1", allow_unpriced="true")
    assert main(["estimate", "--duckdb", str(db), "--judges-file", str(priced)]) == 0
    assert "unpriced synchronous, unpriced batch" in capsys.readouterr().out


def test_a_budget_stop_sends_nothing_past_the_budget_and_the_next_run_completes(server, tmp_path):
    table = long_requests(6)
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    base = {
        "name": "loop",
        "model": "openai/loopback-model-1",
        "api_base": server.api_base,
        "api_key_env": "LOOPBACK_KEY",
        "mode": "batch",
        "price": {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0},
        "batch": {"poll_initial_s": 0.01, "poll_max_s": 0.02, "max_requests": 2},
    }
    spec = JudgeSpec.model_validate(base)
    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import render

    budget = Budget(spec, judge_prices(spec), True, spec.max_tokens)
    chunk = budget.chunk_estimate([render(JudgeRequest.model_validate_json(j)) for j in table["request_json"][:2]])
    assert chunk is not None and chunk > 0
    limited = JudgeSpec.model_validate({**base, "max_cost_usd": 2.5 * chunk})  # room for two chunks of three
    stats = judge_partition(limited, "blind", table, conn)
    assert stats.budget_stop.startswith("stopped at the budget: judge loop") and "max_cost_usd" in stats.budget_stop
    assert server.creates == 2 and server.lines == 4  # the third chunk was not sent
    rows = cache(conn)
    assert len(rows) == 4 and set(rows["status"]) == {"ok"} and rows["cost"].null_count() == 0  # every row whole
    spent = float(rows["cost"].sum())
    assert spent <= 2.5 * chunk

    # the next run (budget raised) sends only the rest: no duplicate, no lost row
    raised = JudgeSpec.model_validate({**base, "max_cost_usd": 10 * chunk})
    stats = judge_partition(raised, "blind", table, conn)
    rows = cache(conn)
    assert not stats.budget_stop and server.creates == 3 and server.lines == 6
    assert len(rows) == 6 and rows.select(KEY).n_unique() == 6 and set(rows["status"]) == {"ok"}
    assert sorted(server.custom_ids) == sorted(set(server.custom_ids))  # no request sent twice


def test_the_run_budget_counts_too_and_a_bad_value_is_refused(server, tmp_path, monkeypatch):
    from cojudge_assets.judges.estimate import RUN_BUDGET_VARIABLE, run_budget

    monkeypatch.setenv(RUN_BUDGET_VARIABLE, "abc")
    with pytest.raises(ValueError, match=f"{RUN_BUDGET_VARIABLE}='abc': expected a positive number of USD"):
        run_budget()
    monkeypatch.setenv(RUN_BUDGET_VARIABLE, "0.0000001")
    spec = JudgeSpec.model_validate(
        {
            "name": "loop",
            "model": "openai/loopback-model-1",
            "api_base": server.api_base,
            "api_key_env": "LOOPBACK_KEY",
            "mode": "batch",
            "price": {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0},
            "batch": {"poll_initial_s": 0.01, "poll_max_s": 0.02},
        }
    )
    stats = judge_partition(spec, "blind", requests_table(2), duckdb.connect(str(tmp_path / "c.duckdb")))
    assert "run budget" in stats.budget_stop and RUN_BUDGET_VARIABLE in stats.budget_stop and server.uploads == 0


def test_the_synchronous_path_stops_at_the_budget_and_the_next_run_completes(tmp_path, monkeypatch):
    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import render
    from cojudge_tests.judges.loopback import LoopbackServer

    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    table = requests_table(8)
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    with LoopbackServer() as server:
        server.script, server.answer = [("ok", "")], answer
        base = {
            "name": "loop",
            "model": "openai/loopback-model-1",
            "api_base": server.api_base,
            "api_key_env": "LOOPBACK_KEY",
            "concurrency": 1,
            "price": {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0},
        }
        spec = JudgeSpec.model_validate(base)
        budget = Budget(spec, judge_prices(spec), False, spec.max_tokens)
        estimate = budget.chunk_estimate([render(JudgeRequest.model_validate_json(table["request_json"][0]))])
        answer_cost = 11 * 2e-6 + 7 * 8e-6  # the loopback server's usage: 11 prompt and 7 completion tokens
        # room for the estimate of one request on top of 3.5 answers' cost: the 5th request would pass it
        limited = JudgeSpec.model_validate({**base, "max_cost_usd": estimate + 3.5 * answer_cost})
        stats = judge_partition(limited, "blind", table, conn, backoff=(0.01, 0.05))
        assert stats.budget_stop.startswith("stopped at the budget: judge loop")
        assert len(server.requests) == 4 and stats.sent == 4
        rows = cache(conn)
        assert len(rows) == 4 and set(rows["status"]) == {"ok"}
        assert rows["cost"].to_list() == pytest.approx([answer_cost] * 4)  # the judges file's price, stored
        stats = judge_partition(spec, "blind", table, conn, backoff=(0.01, 0.05))  # no budget: the rest
        rows = cache(conn)
        assert not stats.budget_stop and len(server.requests) == 8 and stats.sent == 4
        assert len(rows) == 8 and rows.select(KEY).n_unique() == 8


def test_the_estimate_without_stored_requests_says_how_to_make_them(tmp_path, capsys):
    judges = judges_yaml(tmp_path / "judges.yaml", "http://127.0.0.1:9/v1", "openai/gpt-4o-mini")
    assert main(["estimate", "--duckdb", str(tmp_path / "none.duckdb"), "--judges-file", str(judges)]) == 2
    err = capsys.readouterr().err
    assert "none.duckdb: no table judge_requests to estimate from" in err
    assert "cojudge materialize --select judge_requests" in err
    assert not (tmp_path / "none.duckdb").exists()  # nothing written


def reserve_at_once(ledgers: list, usd: float, limit: float) -> list[bool]:
    """Each ledger (one per thread, as partitions judging at once) reserves ``usd`` for run "r1" at the same moment."""
    from cojudge_tests.judges.test_shared_budgets import at_once

    return at_once(lambda ledger: ledger.reserve("r1", usd, limit)[0], ledgers)


def test_partitions_reserving_at_once_never_pass_the_run_budget_together_on_duckdb(tmp_path):
    from cojudge_assets.judges.store import DuckDBStore

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    stores = [DuckDBStore(conn.cursor()) for _ in range(8)]
    granted = reserve_at_once([store.run_ledger() for store in stores], 0.3, 1.0)
    assert sorted(granted) == [False] * 5 + [True] * 3  # 3 x 0.3 fit under 1.0, a 4th would pass it
    ledger = DuckDBStore(conn).run_ledger()
    assert ledger.state("r1") == pytest.approx((0.0, 0.9))
    ledger.settle("r1", 0.3, 0.25)  # one chunk answered: its estimate released, its cost spent
    assert ledger.state("r1") == pytest.approx((0.25, 0.6))
    assert ledger.reserve("r1", 0.15, 1.0)[0] and not ledger.reserve("r1", 0.01, 1.0)[0]  # 0.25 + 0.75 = 1.0
    assert ledger.reserve("r2", 0.9, 1.0)[0]  # another run: a budget of its own


def test_partitions_reserving_at_once_never_pass_the_run_budget_together_on_postgres(postgres):
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    url = libpq_url(postgres.create_database("run_budget").url)
    stores = [PostgresStore(url) for _ in range(8)]  # a connection each, as runs in processes of their own
    try:
        granted = reserve_at_once([store.run_ledger() for store in stores], 0.3, 1.0)
        assert sorted(granted) == [False] * 5 + [True] * 3
        assert stores[0].run_ledger().state("r1") == pytest.approx((0.0, 0.9))
    finally:
        for store in stores:
            store.close()


def test_the_run_budget_holds_across_the_partitions_of_one_run_and_the_next_run_continues(
    server, tmp_path, monkeypatch
):
    from cojudge_assets.judges.estimate import RUN_BUDGET_VARIABLE
    from cojudge_tests.judges.test_batch import spec as batch_spec

    table = long_requests(4)
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    # expected output tokens as the loopback server answers (20): estimates near the actual cost
    spec = batch_spec(server.api_base, expected_output_tokens=20)
    from cojudge_assets.core.judging.models import JudgeRequest
    from cojudge_assets.core.judging.prompts import render

    budget = Budget(spec, judge_prices(spec), True, 20)
    one = budget.chunk_estimate([render(JudgeRequest.model_validate_json(j)) for j in table["request_json"]])
    assert one is not None
    # each partition alone fits the run budget; the two of one run do not
    monkeypatch.setenv(RUN_BUDGET_VARIABLE, str(1.5 * one))
    first = judge_partition(spec, "blind", table, conn, run_key="run-1")
    second = judge_partition(spec, "nonblind", table, conn, run_key="run-1")
    assert not first.budget_stop and first.sent == 4
    assert "run budget" in second.budget_stop and f"{RUN_BUDGET_VARIABLE}, summed over every partition" in (
        second.budget_stop
    )
    assert server.creates == 1 and server.lines == 4  # nothing of the second partition was sent
    spent, reserved = conn.execute("select spent_usd, reserved_usd from main.run_budgets").fetchone()
    assert reserved == 0 and spent == pytest.approx(float(cache(conn)["cost"].sum())) and spent > 0.5 * one
    # the next run has a budget of its own: it sends the rest, once
    again = judge_partition(spec, "nonblind", table, conn, run_key="run-2")
    rows = cache(conn)
    assert not again.budget_stop and server.creates == 2 and server.lines == 8
    assert len(rows) == 8 and rows.select(KEY).n_unique() == 8 and set(rows["status"]) == {"ok"}
    assert sorted(server.custom_ids) == sorted(set(server.custom_ids))
