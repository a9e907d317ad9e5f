"""A measurement partition reads only its own rows of the judge cache (defs/measurement/assets.py
``judge_cache_slice``): a filtered query on Postgres under the deployed profile, never the whole-store snapshot."""

from __future__ import annotations

import contextlib
from datetime import datetime

import duckdb
import polars as pl
import pytest

from cojudge_assets.core.measurement.predictions import CACHE_READ
from cojudge_assets.core.operations.drift import read_drift_inputs
from cojudge_assets.core.report.content import ACCOUNTING, read_stores
from cojudge_assets.defs.measurement.assets import judge_cache_slice
from cojudge_assets.judges.postgres_store import PostgresStore
from cojudge_assets.judges.store import CACHE_TABLE, CacheWriter, DuckDBStore, ensure_tables
from cojudge_assets.settings import libpq_url

CELLS = [("j", "blind"), ("j", "nonblind"), ("k", "blind"), ("k", "nonblind")]


def cache_rows() -> list[dict]:
    return [
        {
            "attempt_uid": f"u{i:03d}",
            "judge": judge,
            "condition": condition,
            "request_hash": f"h{i}",
            "epoch": 1 + i % 2,
            "status": "ok",
            "p_accept": i / 100,
            "tries": 1,
            "judged_at": datetime(2026, 12, 4, 12, 0, i % 60),
        }
        for judge, condition in CELLS
        for i in range(25)
    ]


class Deployed:
    """The deployed resource's two ways in (defs/deployed.py ``DeployedStores``): the store, and the snapshot,
    which a partition's reader must not take."""

    def __init__(self, dsn: str):
        self.dsn = dsn
        self.opened = 0

    @contextlib.contextmanager
    def judge_store(self):
        store = PostgresStore(self.dsn)
        self.opened += 1
        try:
            yield store
        finally:
            store.close()

    def get_connection(self):
        raise AssertionError("a partition's reader copied the whole store (get_connection)")


def test_under_the_deployed_profile_a_partition_moves_only_its_rows(postgres, monkeypatch):
    dsn = libpq_url(postgres.create_database("cache_slice").url)
    store = PostgresStore(dsn)
    try:
        store.ensure_tables()
        writer = store.writer()
        for row in cache_rows():
            writer.write(row)
        writer.close()
        total = store.read_table(CACHE_TABLE)
        assert total is not None and len(total) == 100
    finally:
        store.close()
    moved: list[int] = []
    fetch = PostgresStore._fetch

    def counting(self, sql, params=()):  # every row a query returns crosses the connection: count them
        rows = fetch(self, sql, params)
        if CACHE_TABLE in sql and "information_schema" not in sql:
            moved.append(len(rows))
        return rows

    monkeypatch.setattr(PostgresStore, "_fetch", counting)
    resource = Deployed(dsn)
    attempts = pl.DataFrame({"attempt_uid": [f"u{i:03d}" for i in range(20)]})  # the contest's: not a mutant
    rows = judge_cache_slice(resource, attempts, "k", "blind")
    assert resource.opened == 1
    assert moved == [25]  # the partition's rows, of the store's 100
    assert len(rows) == 20 and set(rows["judge"]) == {"k"} and set(rows["condition"]) == {"blind"}
    assert rows.schema == CACHE_READ
    with pytest.raises(ValueError, match="no columns"):
        PostgresStore(dsn).cache_rows("k", "blind", ("judge", "secret"))


def test_in_the_duckdb_file_the_same_slice(tmp_path):
    path = tmp_path / "c.duckdb"
    with duckdb.connect(str(path)) as conn:
        ensure_tables(conn)
        writer = CacheWriter(conn)
        for row in cache_rows():
            writer.write(row)
        writer.close()

    class Embedded:
        @contextlib.contextmanager
        def get_connection(self):
            with duckdb.connect(str(path), read_only=True) as conn:
                yield conn

    rows = judge_cache_slice(Embedded(), pl.DataFrame({"attempt_uid": ["u001", "u002"]}), "j", "nonblind")
    assert sorted(rows["attempt_uid"]) == ["u001", "u002"] and set(rows["judge"]) == {"j"}
    assert set(rows["condition"]) == {"nonblind"}


def counting_fetches(monkeypatch) -> list[int]:
    """The rows each query on the judge cache returns (every such row crosses the connection), from now on."""
    moved: list[int] = []
    fetch = PostgresStore._fetch

    def counting(self, sql, params=()):
        rows = fetch(self, sql, params)
        if CACHE_TABLE in sql and "information_schema" not in sql:
            moved.append(len(rows))
        return rows

    monkeypatch.setattr(PostgresStore, "_fetch", counting)
    return moved


def test_under_the_deployed_profile_the_report_and_drift_readers_move_counts_and_the_drifted_judges_rows(
    postgres, monkeypatch, tmp_path
):
    """The report reads the judge cache as its counts and the drift report only the drifted judge's valid answers
    (core/report/content.py ``read_stores``, core/operations/drift.py ``read_drift_inputs``): the figures the DuckDB
    file gives, with the rows counted as they leave Postgres."""
    dsn = libpq_url(postgres.create_database("readers_slice").url)
    rows = cache_rows()
    rows[0] |= {"status": "failed"}  # j, blind, u000: one failed answer, counted, never a drift answer
    store = PostgresStore(dsn)
    try:
        store.ensure_tables()
        writer = store.writer()
        for row in rows:
            writer.write(row)
        writer.close()
        store.record_drift("k", "model-1", "model-2", "provider now serves model-2")
    finally:
        store.close()
    path = tmp_path / "same.duckdb"
    with duckdb.connect(str(path)) as conn:
        ensure_tables(conn)
        writer = CacheWriter(conn)
        for row in rows:
            writer.write(row)
        writer.close()
    attempts = pl.DataFrame(  # the contest's 20 of the 25 uids (the other 5 stand for mutants)
        {
            "attempt_uid": [f"u{i:03d}" for i in range(20)],
            "accepted": [i % 3 == 0 for i in range(20)],
            "participant": [f"p{i % 4}" for i in range(20)],
            "problem_id": ["a"] * 20,
        }
    )
    moved = counting_fetches(monkeypatch)
    store = PostgresStore(dsn)
    try:
        stores = read_stores(store, attempts)
        answers, events = read_drift_inputs(store, attempts, pl.DataFrame({"judge": ["j", "k"]}))
    finally:
        store.close()
    assert moved == [50]  # the drifted judge k's valid answers, 2 conditions x 25 (the accounting: its counts below)
    counts = stores[ACCOUNTING]
    # the cache's 100 rows counted on the server: 4 cells x 2 epochs x (contest or not), and the failed answer
    assert len(counts) <= 17 and int(counts["answers"].sum()) == 100
    assert int(counts.filter(pl.col("contest"))["answers"].sum()) == 80
    assert int(counts.filter(pl.col("status") == "failed")["answers"].sum()) == 1
    assert set(events["judge"]) == {"k"} and len(events) == 1
    assert set(answers["judge"]) == {"k"} and len(answers) == 40  # k's valid answers on the contest's attempts
    with duckdb.connect(str(path), read_only=True) as conn:
        embedded = DuckDBStore(conn).accounting(attempts)
    order = ["judge", "condition", "epoch", "status", "contest"]
    assert counts.sort(order).equals(embedded.sort(order))


def test_the_drift_readers_under_the_deployed_profile_count_on_the_server_and_copy_no_cache(
    postgres, monkeypatch, tmp_path
):
    """The drift sensor's served model and the judges file's drift epochs are queries on Postgres (one row back,
    never the judge cache's rows), with the DuckDB store's answers; the deployed resource's snapshot holds the
    side tables only, and design reads its own previous table from Delta (defs/deployed.py ``DeployedStores``)."""
    from deltalake import write_deltalake

    from cojudge_assets.defs.deployed import DeployedStores, table_uri
    from cojudge_assets.defs.design.assets import _stored

    url = postgres.create_database("drift_slice").url
    dsn = libpq_url(url)
    rows = cache_rows()
    for row in rows:
        row["served_model"] = "model-a" if int(row["attempt_uid"][1:]) % 5 else "model-b"
    path = tmp_path / "same.duckdb"
    with duckdb.connect(str(path)) as conn:
        embedded = DuckDBStore(conn)
        ensure_tables(conn)
        writer = CacheWriter(conn)
        for row in rows:
            writer.write(row)
        writer.close()
        embedded.record_drift("k", "model-1", "model-2", "provider now serves model-2")
        expected = ({j: embedded.served_model(j) for j in ("j", "k", "x")}, embedded.drift_epochs())
    store = PostgresStore(dsn)
    try:
        store.ensure_tables()
        assert store.drift_epochs() == {}
        writer = store.writer()
        for row in rows:
            writer.write(row)
        writer.close()
        store.record_drift("k", "model-1", "model-2", "provider now serves model-2")
        moved = counting_fetches(monkeypatch)
        found = ({j: store.served_model(j) for j in ("j", "k", "x")}, store.drift_epochs())
    finally:
        store.close()
    assert found == expected and found[1] == {"k": 1}, found
    # k's drift opened its epoch 1, whose commonest model is model-a; j and x have no epoch recorded (0)
    assert found[0] == {"j": None, "k": "model-a", "x": None}, found
    assert moved == [0, 1, 0], moved  # k's commonest model, one row; j's and x's nothing

    resource = DeployedStores(database=str(tmp_path / "x.duckdb"), postgres_url=url, tables_root=str(tmp_path / "t"))
    with resource.get_connection() as conn:
        tables = {r[0] for r in conn.execute("select table_name from information_schema.tables").fetchall()}
    assert CACHE_TABLE not in tables and len(tables) >= 3, tables  # epochs, settings, drift events at least

    assert _stored(resource, "design_record") is None
    record = pl.DataFrame({"prompt_version": ["v1"], "split_digest": ["abc"]})
    write_deltalake(table_uri(resource.tables_root, "design_record"), record.to_arrow())
    assert _stored(resource, "design_record").equals(record)
