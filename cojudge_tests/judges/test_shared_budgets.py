"""Budgets that hold across runs judging at once or one after another (judges/estimate.py): a judge's own
``max_cost_usd`` reserved in the judge store's ledger (table ``run_budgets``, one row per judge), so partitions of
one judge judging at once never pass it together, on DuckDB and on Postgres; and the budget window
(``COJUDGE_BUDGET_WINDOW``) that makes the runs the daemon launches, and launches again after a failure, share one
run budget."""

from __future__ import annotations

import threading
import uuid
from collections.abc import Callable
from datetime import UTC, datetime, timedelta

import duckdb
import pytest

from cojudge_assets.judges.config import JudgeSpec
from cojudge_assets.judges.estimate import (
    RUN_BUDGET_VARIABLE,
    Budget,
    RunBudget,
    budget_key,
    judge_key,
    judge_prices,
    window_key,
)
from cojudge_assets.judges.runner import judge_partition
from cojudge_assets.judges.store import KEY
from cojudge_assets.settings import BUDGET_WINDOW_VARIABLE, variable_problems
from cojudge_tests.judges.loopback import LoopbackServer
from cojudge_tests.judges.test_batch import KEY_VALUE, answer, cache, requests_table

SPEC = {
    "name": "loop",
    "model": "openai/loopback-model-1",
    "api_key_env": "LOOPBACK_KEY",
    "price": {"input_usd_per_mtok": 2.0, "output_usd_per_mtok": 8.0},
}


def at_once(work: Callable, items: list) -> list:
    """``work(item)`` for each item, in a thread each, all released at one moment; their results, in the order they
    ended."""
    barrier = threading.Barrier(len(items))
    results: list = []

    def run(item) -> None:
        barrier.wait()
        results.append(work(item))

    threads = [threading.Thread(target=run, args=(item,)) for item in items]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    return results


def judge_reserves_at_once(ledgers: list, usd: float, spent: float, limit: float, run_limit: float | None = None):
    """Each ledger (a connection each, as partitions of judge ``loop`` in runs of their own) asks the judge's budget
    for ``usd`` at the same moment; ``spent``: what the judge's stored answers cost. The refusals, "" where granted."""
    spec = JudgeSpec.model_validate({**SPEC, "max_cost_usd": limit})
    prices = judge_prices(spec)
    budgets = [
        Budget(
            spec,
            prices,
            False,
            10,
            spent_usd=spent,
            run=RunBudget(ledger, uuid.uuid4().hex, run_limit),  # each partition in a run of its own
            judge=RunBudget(ledger, judge_key("loop"), limit),
        )
        for ledger in ledgers
    ]
    return at_once(lambda budget: budget.reserve(usd, 0.0), budgets)


def check_judge_ledger(ledger, refusals: list[str]) -> None:
    # spent 0.25 (the stored answers) + 3 x 0.25 reach the limit of 1.0; a 4th would pass it (binary-exact figures)
    assert sorted(bool(r) for r in refusals) == [False] * 3 + [True] * 5
    stop = next(r for r in refusals if r)
    assert stop.startswith("stopped at the budget: judge loop: spent 0.2500 + reserved 0.7500")
    assert "judge budget of 1.0000 USD (max_cost_usd in the judges file, summed over every partition" in stop
    assert ledger.state(judge_key("loop")) == pytest.approx((0.25, 0.75))  # the stored spending counted once
    ledger.settle(judge_key("loop"), 0.25, 0.125)  # one chunk answered: its estimate released, its cost spent
    assert ledger.state(judge_key("loop")) == pytest.approx((0.375, 0.5))
    # a stale floor (the stored spending a partition read at its start) never lowers what the row counts
    assert ledger.reserve(judge_key("loop"), 0.125, 1.0, spent_floor=0.25)[0]
    assert not ledger.reserve(judge_key("loop"), 0.0625, 1.0, spent_floor=0.25)[0]
    assert ledger.reserve(judge_key("other"), 0.9, 1.0)[0]  # another judge: a budget of its own


def test_partitions_of_one_judge_reserving_at_once_never_pass_its_max_cost_usd_on_duckdb(tmp_path):
    from cojudge_assets.judges.store import DuckDBStore

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    ledgers = [DuckDBStore(conn.cursor()).run_ledger() for _ in range(8)]
    check_judge_ledger(ledgers[0], judge_reserves_at_once(ledgers, 0.25, 0.25, 1.0))


def test_partitions_of_one_judge_reserving_at_once_never_pass_its_max_cost_usd_on_postgres(postgres):
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    url = libpq_url(postgres.create_database("judge_budget").url)
    stores = [PostgresStore(url) for _ in range(8)]  # a connection each, as runs in processes of their own
    try:
        ledgers = [store.run_ledger() for store in stores]
        check_judge_ledger(ledgers[0], judge_reserves_at_once(ledgers, 0.25, 0.25, 1.0))
    finally:
        for store in stores:
            store.close()


RESERVER = """
import sys
from cojudge_assets.judges.estimate import judge_key
from cojudge_assets.judges.postgres_store import PostgresStore

store = PostgresStore(sys.argv[1])
ledger = store.run_ledger()
print("ready", flush=True)
sys.stdin.readline()  # the start, given to both processes at once
granted = [ledger.reserve(judge_key("loop"), 0.25, 1.0, spent_floor=0.25)[0] for _ in range(3)]
print(sum(granted), flush=True)
store.close()
"""


def test_two_processes_reserving_at_once_never_pass_one_judge_budget_on_postgres(postgres):
    """Two processes (as two runs of a deployment) reserve 0.25 three times each, at once, for judge ``loop``
    with 0.25 of its 1.0 spent: 3 granted between them, whatever the interleaving."""
    import subprocess
    import sys

    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    url = libpq_url(postgres.create_database("judge_budget_processes").url)
    store = PostgresStore(url)
    ledger = store.run_ledger()  # the table, made once before the race
    processes = [
        subprocess.Popen(
            [sys.executable, "-c", RESERVER, url], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True
        )
        for _ in range(2)
    ]
    for process in processes:
        assert process.stdout is not None and process.stdout.readline().strip() == "ready"
    for process in processes:
        assert process.stdin is not None
        process.stdin.write("go\n")
        process.stdin.flush()
    granted = [int(process.communicate(timeout=120)[0].strip()) for process in processes]
    try:
        assert sum(granted) == 3
        assert ledger.state(judge_key("loop")) == (0.25, 0.75)
    finally:
        store.close()


def reserve_and_settle_at_once(ledgers: list, pairs: int = 40) -> tuple[float, float]:
    """Each ledger (a thread each) reserves 0.25 and settles it at a cost of 0.125, ``pairs`` times, on one row."""

    def work(ledger) -> None:
        for _ in range(pairs):
            assert ledger.reserve(judge_key("loop"), 0.25, None)[0]
            ledger.settle(judge_key("loop"), 0.25, 0.125)

    at_once(work, ledgers)
    return ledgers[0].state(judge_key("loop"))


def test_reservations_and_settlements_at_once_lose_no_update_on_duckdb(tmp_path):
    """DuckDB 1.5.6 loses most of these updates when the statements run at once (9.5 of 20.0 spent, 21.0 left
    reserved): the store runs the ledger's statements one at a time."""
    from cojudge_assets.judges.store import DuckDBStore

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    ledgers = [DuckDBStore(conn.cursor()).run_ledger() for _ in range(4)]
    assert reserve_and_settle_at_once(ledgers) == (4 * 40 * 0.125, 0.0)


def test_reservations_and_settlements_at_once_lose_no_update_on_postgres(postgres):
    from cojudge_assets.judges.postgres_store import PostgresStore
    from cojudge_assets.settings import libpq_url

    url = libpq_url(postgres.create_database("ledger_updates").url)
    stores = [PostgresStore(url) for _ in range(4)]
    try:
        assert reserve_and_settle_at_once([store.run_ledger() for store in stores]) == (4 * 40 * 0.125, 0.0)
    finally:
        for store in stores:
            store.close()


def test_a_chunk_the_run_budget_refuses_gives_its_judge_reservation_back(tmp_path):
    from cojudge_assets.judges.store import DuckDBStore

    ledger = DuckDBStore(duckdb.connect(str(tmp_path / "c.duckdb"))).run_ledger()
    refusals = judge_reserves_at_once([ledger], 0.25, 0.0, 1.0, run_limit=0.125)
    assert "would pass the run budget of 0.1250 USD" in refusals[0]
    assert ledger.state(judge_key("loop")) == (0.0, 0.0)  # nothing held for a chunk that was not sent


def test_two_partitions_of_one_judge_judging_at_once_spend_no_token_past_its_budget(tmp_path, monkeypatch):
    """The synchronous path, end to end: two conditions of judge ``loop`` judged at once (two threads, a connection
    each), after a first partition's answers; the loopback server answers every request with 7 output tokens, and
    the price counts output tokens only, so each request's estimate is exactly its cost."""
    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    answer_cost = 7 * 8e-6
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    # answers slow enough that the two partitions overlap: 0.1 s did not, once, on 2 workers (pytest-xdist) at load 20,
    # where a thread can wait that long for a core; 1 s is the window the two threads' first requests must meet in
    with LoopbackServer(delay_s=1.0) as server:
        server.script, server.answer = [("ok", "")], answer
        base = {
            **SPEC,
            "api_base": server.api_base,
            "concurrency": 1,
            "expected_output_tokens": 7,
            "price": {"input_usd_per_mtok": 0.0, "output_usd_per_mtok": 8.0},
        }
        # 2 answers spent before the judge has a budget and with no run budget: priced at the judges file's price
        # and stored all the same, so the budget set later counts them
        monkeypatch.delenv(RUN_BUDGET_VARIABLE, raising=False)
        first = judge_partition(JudgeSpec.model_validate(base), "blind", requests_table(2), conn)
        assert first.sent == 2 and not first.budget_stop
        assert float(cache(conn)["cost"].sum()) == pytest.approx(2 * answer_cost)  # counted from the stored rows
        # room for 5.5 answers: the 2 stored, and 3 more between the two partitions (alone, each would send 3)
        limited = JudgeSpec.model_validate({**base, "max_cost_usd": 5.5 * answer_cost})
        cursors = {condition: conn.cursor() for condition in ("nonblind", "prefix12k")}  # a connection each
        stats = dict(
            at_once(
                lambda c: (c, judge_partition(limited, c, requests_table(4), cursors[c], backoff=(0.01, 0.05))),
                list(cursors),
            )
        )
        assert len(server.requests) == 5  # what the server counted: 5 answers x 7 tokens, within 5.5 answers' cost
        assert server.max_in_flight == 2  # the two partitions did judge at once
    assert sum(s.sent for s in stats.values()) == 3
    assert all(s.budget_stop.startswith("stopped at the budget: judge loop") for s in stats.values())
    rows = cache(conn)
    assert len(rows) == 5 and rows.select(KEY).n_unique() == 5 and set(rows["status"]) == {"ok"}
    assert float(rows["cost"].sum()) <= 5.5 * answer_cost
    spent, reserved = conn.execute(
        "select spent_usd, reserved_usd from main.run_budgets where run_key = ?", [judge_key("loop")]
    ).fetchone()
    assert reserved == pytest.approx(0.0, abs=1e-12) and spent == pytest.approx(5 * answer_cost)


# --- the budget window --------------------------------------------------------------------------------------------

NOON = datetime(2026, 12, 5, 12, 30, tzinfo=UTC)


@pytest.mark.parametrize(
    ("window", "tag", "key"),
    [
        (None, "command-1", "command-1"),  # one cojudge materialize: its runs share its tag, as before
        (None, None, "window:day:2026-12-05"),  # the daemon's run (no tag): the day's budget
        ("run", None, "run-a"),  # each untagged run alone, by choice
        ("run", "command-1", "command-1"),
        ("hour", "command-1", "window:hour:2026-12-05T12"),  # a window set: every run in it, tagged or not
        ("day", None, "window:day:2026-12-05"),
        ("week", None, "window:week:2026-W49"),
        ("month", None, "window:month:2026-12"),
    ],
)
def test_the_budget_key_of_a_run(window, tag, key):
    environ = {BUDGET_WINDOW_VARIABLE: window} if window else {}
    assert budget_key("run-a", tag, environ, NOON) == key


def test_runs_of_one_window_share_a_key_and_the_next_window_has_its_own():
    later = NOON + timedelta(hours=11, minutes=29)  # 23:59 the same day
    assert budget_key("run-a", None, {}, NOON) == budget_key("run-b", None, {}, later)
    assert budget_key("run-a", None, {}, later + timedelta(minutes=1)) == "window:day:2026-12-06"
    assert window_key("hour", datetime(2026, 12, 5, 14, 0, tzinfo=UTC).astimezone()) == "window:hour:2026-12-05T14"


def test_a_bad_budget_window_is_refused_naming_the_variable():
    with pytest.raises(ValueError, match=f"{BUDGET_WINDOW_VARIABLE}='fortnight': expected one of run, hour, day"):
        budget_key("run-a", None, {BUDGET_WINDOW_VARIABLE: "fortnight"})
    assert variable_problems({BUDGET_WINDOW_VARIABLE: "fortnight"}, profile=False) == [
        f"{BUDGET_WINDOW_VARIABLE}='fortnight': expected one of run, hour, day, week, month"
    ]


def test_runs_the_daemon_retries_in_one_window_spend_one_run_budget(tmp_path, monkeypatch):
    """Three runs with no tag (the daemon's first try and its retries after the failure backoff) on one day, and one
    the next day: the first two share the day's budget, the next day's has its own."""
    monkeypatch.setenv("LOOPBACK_KEY", KEY_VALUE)
    answer_cost = 7 * 8e-6
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    monkeypatch.setenv(RUN_BUDGET_VARIABLE, str(3.5 * answer_cost))  # 3 answers a day
    with LoopbackServer() as server:
        server.script, server.answer = [("ok", "")], answer
        spec = JudgeSpec.model_validate(
            {
                **SPEC,
                "api_base": server.api_base,
                "concurrency": 1,
                "expected_output_tokens": 7,
                "price": {"input_usd_per_mtok": 0.0, "output_usd_per_mtok": 8.0},
            }
        )
        table = requests_table(8)

        def daemon_run(at: datetime):
            key = budget_key(uuid.uuid4().hex, None, {}, at)  # a run of its own id, no cojudge/run tag
            return judge_partition(spec, "blind", table, conn, backoff=(0.01, 0.05), run_key=key)

        first = daemon_run(NOON)
        assert first.sent == 3 and "run budget" in first.budget_stop
        retry = daemon_run(NOON + timedelta(hours=2))  # the retry: the same day's budget, already spent
        assert retry.sent == 0 and "run budget" in retry.budget_stop and len(server.requests) == 3
        next_day = daemon_run(NOON + timedelta(days=1))
        assert next_day.sent == 3 and len(server.requests) == 6
    budgets = dict(conn.execute("select run_key, spent_usd from main.run_budgets").fetchall())
    days = {"window:day:2026-12-05": 3 * answer_cost, "window:day:2026-12-06": 3 * answer_cost}
    assert budgets == pytest.approx(days)
    rows = cache(conn)
    assert len(rows) == 6 and rows.select(KEY).n_unique() == 6


def test_what_a_killed_holder_reserved_lapses_after_the_lease_and_a_live_row_s_does_not(tmp_path):
    """A process killed with requests in flight never settles: its reservation would stop the judge early for ever.
    A row with no reserve or settle for RESERVATION_LEASE_S counts nothing reserved; a live row keeps counting."""
    from cojudge_assets.judges.estimate import RESERVATION_LEASE_S, RUN_BUDGETS_TABLE
    from cojudge_assets.judges.store import DuckDBStore

    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    ledger = DuckDBStore(conn).run_ledger()
    key = judge_key("loop")
    assert ledger.reserve(key, 0.75, 1.0)[0]  # the holder is killed here: never settled
    assert not ledger.reserve(key, 0.5, 1.0)[0]  # within the lease the 0.75 still holds
    assert ledger.state(key) == (0.0, 0.75)

    def age(seconds: float) -> None:
        then = datetime.now(UTC).replace(tzinfo=None) - timedelta(seconds=seconds)
        conn.execute(f"update main.{RUN_BUDGETS_TABLE} set updated_at = ? where run_key = ?", [then, key])

    age(RESERVATION_LEASE_S - 60)
    assert not ledger.reserve(key, 0.5, 1.0)[0]  # not yet lapsed
    age(RESERVATION_LEASE_S + 60)
    granted, spent, reserved = ledger.reserve(key, 0.5, 1.0)
    assert granted and ledger.state(key) == (0.0, 0.5), (granted, spent, reserved)  # the lapsed 0.75 is gone
    ledger.settle(key, 0.5, 0.25)
    assert ledger.state(key) == (0.25, 0.0)
    age(RESERVATION_LEASE_S + 60)  # spending never lapses: 0.25 spent + 0.8 > 1.0
    assert not ledger.reserve(key, 0.8, 1.0)[0]
