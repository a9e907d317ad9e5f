"""The two judge-cache writers (judges/store.py ``CacheWriter`` for the DuckDB file, judges/postgres_store.py
``PostgresCacheWriter`` under the deployed profile) share one batching thread (``BatchingWriter``): the same rows
written through each, retries of one key included, leave the same table."""

from __future__ import annotations

from datetime import datetime

import duckdb
import polars as pl

from cojudge_assets.judges.postgres_store import PostgresStore
from cojudge_assets.judges.store import CACHE_TABLE, COMMIT_EVERY, CacheWriter, ensure_tables
from cojudge_assets.settings import libpq_url


def rows() -> list[dict]:
    out = []
    for i in range(COMMIT_EVERY * 2 + 3):  # more than one batch
        out.append(
            {
                "attempt_uid": f"u{i:02d}/a-01",
                "judge": "j",
                "condition": "blind",
                "request_hash": f"h{i}",
                "epoch": 1,
                "status": "failed" if i % 5 == 0 else "ok",
                "p_accept": i / 100,
                "tries": 1,
                "judged_at": datetime(2026, 12, 3, 12, 0, i % 60),
            }
        )
    # a failed try replaced by the next one's answer: the last row of a key wins
    out.append({**out[0], "status": "ok", "p_accept": 0.99, "tries": 2})
    return out


def table(frame: pl.DataFrame) -> list[tuple]:
    return sorted(frame.select("attempt_uid", "status", "p_accept", "tries", "judged_at").rows())


def through_postgres(postgres, name: str, batch: list[dict]) -> tuple[pl.DataFrame, int]:
    """``batch`` written through the Postgres store's writer into a new database: the table, and the rows written."""
    store = PostgresStore(libpq_url(postgres.create_database(name).url))
    try:
        store.ensure_tables()
        writer = store.writer()
        for row in batch:
            writer.write(row)
        writer.close()
        there = store.read_table(CACHE_TABLE)
    finally:
        store.close()
    assert there is not None
    return there, writer.written


def test_both_writers_leave_the_same_rows(tmp_path, postgres):
    conn = duckdb.connect(str(tmp_path / "c.duckdb"))
    ensure_tables(conn)
    writer = CacheWriter(conn)
    for row in rows():
        writer.write(row)
    writer.close()
    here = conn.execute(f"select * from main.{CACHE_TABLE}").pl()

    there, written = through_postgres(postgres, "cache_writers", rows())
    assert len(here) == len(rows()) - 1 == len(there)
    assert table(here) == table(there)
    assert here.filter(pl.col("attempt_uid") == "u00/a-01")["tries"].to_list() == [2]
    assert writer.written == written == len(rows())


def test_a_key_written_twice_in_one_batch_keeps_the_last_row(postgres):
    """Two rows of one key in one batch (a failed try and its retry within the commit interval): Postgres refuses an
    upsert that touches a row twice in one statement, so the batch keeps the last row of each key."""
    first = rows()[0]
    batch = [first, {**first, "status": "ok", "p_accept": 0.5, "tries": 2}, rows()[1]]
    there, _ = through_postgres(postgres, "cache_writer_batch", batch)
    assert sorted(there.select("attempt_uid", "tries", "p_accept").rows()) == [
        ("u00/a-01", 2, 0.5),
        ("u01/a-01", 1, 0.01),
    ]
