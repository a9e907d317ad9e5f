"""The judge cache: every judge answer, one DuckDB row each, written as it arrives.

Table ``judge_cache`` is keyed by (attempt_uid, judge, condition, request_hash,
epoch). The request hash covers the prompt version and the canonical request,
so an unchanged request is found here and never sent again, and a changed one
(new code, new context, new prompt) is a new row. ``epoch`` counts re-judgings
of the same requests by the same judge: it starts at 0, and when a provider
starts serving another model under the judge's name, or the judges file changes
what the judge answers with (its model, temperature, token budgets, JSON mode:
``JudgeSpec.answer_settings``), the next epoch's answers are stored beside the
old ones instead of over them (table ``judge_epochs`` says which epoch is
current for each judge and why it began; ``judge_settings`` holds the settings
each epoch answered with).

A row is upserted (INSERT OR REPLACE on the key): a failed row is replaced by
the next try's row, and a valid row is never sent again, so a re-run never
duplicates. ``status`` is ``ok``, ``abstained`` or ``failed``. An abstention
(core/judging/models.py) is a final answer like a valid one, never sent again: its
p_accept and scores are null, its reason is in ``rationale`` (the judge's own
words) and ``error`` stays null (nothing went wrong).

Rows are committed in small batches by a writer thread: at least
every ``COMMIT_EVERY`` rows and every ``COMMIT_INTERVAL_S`` seconds, so a killed run loses at most the rows of the
last half second (and those in flight), never a committed one. A commit per
row cost about 5 ms of fsync, a fifth of a 32-way run's time.
"""

from __future__ import annotations

import json
import queue
import threading
import time
from datetime import UTC, datetime

import duckdb
import polars as pl

CACHE_TABLE = "judge_cache"
EPOCHS_TABLE = "judge_epochs"
SETTINGS_TABLE = "judge_settings"
COMMIT_EVERY = 10
COMMIT_INTERVAL_S = 0.5

CACHE_COLUMNS: dict[str, tuple[str, type[pl.DataType] | pl.DataType]] = {
    "attempt_uid": ("VARCHAR NOT NULL", pl.String),
    "judge": ("VARCHAR NOT NULL", pl.String),
    "condition": ("VARCHAR NOT NULL", pl.String),
    "request_hash": ("VARCHAR NOT NULL", pl.String),
    "epoch": ("INTEGER NOT NULL", pl.Int32),
    "status": ("VARCHAR NOT NULL", pl.String),
    "p_accept": ("DOUBLE", pl.Float64),
    "s_algo": ("INTEGER", pl.Int32),
    "s_robust": ("INTEGER", pl.Int32),
    "rationale": ("VARCHAR", pl.String),
    "raw_response": ("VARCHAR", pl.String),
    "served_model": ("VARCHAR", pl.String),
    "system_fingerprint": ("VARCHAR", pl.String),
    "tries": ("INTEGER", pl.Int32),
    "validation_failures": ("INTEGER", pl.Int32),
    "repaired": ("BOOLEAN", pl.Boolean),
    "provider_errors": ("INTEGER", pl.Int32),
    "latency_s": ("DOUBLE", pl.Float64),
    "input_tokens": ("BIGINT", pl.Int64),
    "output_tokens": ("BIGINT", pl.Int64),
    "cost": ("DOUBLE", pl.Float64),
    "error": ("VARCHAR", pl.String),
    "judged_at": ("TIMESTAMP", pl.Datetime("us")),
    "provenance": ("VARCHAR", pl.String),  # "judged" (sent by cojudge) or "imported" (judges/imports.py)
    "source": ("VARCHAR", pl.String),  # imported rows: the source file(s) and their sha256
}
ADDED_COLUMNS = ("provenance", "source")  # columns newer than the first cache tables: added to older files
KEY = ("attempt_uid", "judge", "condition", "request_hash", "epoch")
ANSWERED_STATUSES = ("ok", "abstained")  # final answers: never sent again
OUTPUT_SCHEMA = pl.Schema({name: dtype for name, (_, dtype) in CACHE_COLUMNS.items()})


def ensure_tables(conn: duckdb.DuckDBPyConnection, schema: str = "main") -> None:
    columns = ", ".join(f"{name} {sql}" for name, (sql, _) in CACHE_COLUMNS.items())
    conn.execute(f"create schema if not exists {schema}")
    conn.execute(f"create table if not exists {schema}.{CACHE_TABLE} ({columns}, primary key ({', '.join(KEY)}))")
    for name in ADDED_COLUMNS:
        conn.execute(f"alter table {schema}.{CACHE_TABLE} add column if not exists {name} {CACHE_COLUMNS[name][0]}")
    conn.execute(
        f"create table if not exists {schema}.{EPOCHS_TABLE} (judge VARCHAR, epoch INTEGER, "
        "reason VARCHAR, started_at TIMESTAMP, primary key (judge, epoch))"
    )
    conn.execute(
        f"create table if not exists {schema}.{SETTINGS_TABLE} (judge VARCHAR, epoch INTEGER, "
        "settings VARCHAR, recorded_at TIMESTAMP, primary key (judge, epoch))"
    )


def current_epoch(conn: duckdb.DuckDBPyConnection, judge: str, schema: str = "main") -> int:
    found = conn.execute(f"select max(epoch) from {schema}.{EPOCHS_TABLE} where judge = ?", [judge]).fetchone()
    return int(found[0]) if found and found[0] is not None else 0


def start_epoch(conn: duckdb.DuckDBPyConnection, judge: str, reason: str, schema: str = "main") -> int:
    """Open the judge's next epoch: its next answers are stored beside the current ones."""
    epoch = current_epoch(conn, judge, schema) + 1
    conn.execute(
        f"insert into {schema}.{EPOCHS_TABLE} values (?, ?, ?, ?)",
        [judge, epoch, reason, datetime.now(UTC).replace(tzinfo=None)],
    )
    return epoch


def _settings_of_epoch(conn: duckdb.DuckDBPyConnection, judge: str, epoch: int, schema: str) -> dict | None:
    row = conn.execute(
        f"select settings from {schema}.{SETTINGS_TABLE} where judge = ? and epoch = ?", [judge, epoch]
    ).fetchone()
    return json.loads(row[0]) if row else None


def settings_change(conn: duckdb.DuckDBPyConnection, judge: str, settings: dict, schema: str = "main") -> str:
    """What differs between ``settings`` and those the judge's current epoch answered with ("" when nothing does,
    or when none were recorded yet)."""
    recorded = _settings_of_epoch(conn, judge, current_epoch(conn, judge, schema), schema)
    settings = json.loads(json.dumps(settings))  # compared as stored
    if recorded is None or recorded == settings:
        return ""
    return ", ".join(
        f"{name} {recorded.get(name)!r} -> {value!r}" for name, value in settings.items() if recorded.get(name) != value
    )


def settled_epoch(conn: duckdb.DuckDBPyConnection, judge: str, settings: dict, schema: str = "main") -> int:
    """The epoch in which the judge answers with ``settings``: its current one, or its next one when the judges
    file changed what it answers with since the current epoch's settings were recorded. An epoch without
    recorded settings (the first, one a drift opened, one of a file written before settings were recorded)
    takes ``settings``."""
    change = settings_change(conn, judge, settings, schema)
    epoch = (
        start_epoch(conn, judge, f"judges file changed: {change}", schema)
        if change
        else current_epoch(conn, judge, schema)
    )
    if change or _settings_of_epoch(conn, judge, epoch, schema) is None:
        conn.execute(
            f"insert into {schema}.{SETTINGS_TABLE} values (?, ?, ?, ?)",
            [judge, epoch, json.dumps(settings, sort_keys=True), datetime.now(UTC).replace(tzinfo=None)],
        )
    return epoch


def valid_keys(
    conn: duckdb.DuckDBPyConnection, judge: str, condition: str, epoch: int, schema: str = "main"
) -> set[tuple[str, str]]:
    """(attempt_uid, request_hash) already answered by this judge in this epoch: validly, or by abstaining."""
    rows = conn.execute(
        f"select attempt_uid, request_hash from {schema}.{CACHE_TABLE} where judge = ? and "
        f"condition = ? and epoch = ? and status in {ANSWERED_STATUSES}",
        [judge, condition, epoch],
    ).fetchall()
    return {(a, h) for a, h in rows}


class CacheWriter:
    """Upserts rows from a writer thread, committing at least every ``COMMIT_EVERY`` rows or
    ``COMMIT_INTERVAL_S`` seconds, whichever comes first.

    The judging loop only puts rows on a queue: a commit (about 3 ms) never stalls the event
    loop that is waiting on the judges. Only the writer thread touches the connection until
    :meth:`close` returns.
    """

    def __init__(self, conn: duckdb.DuckDBPyConnection, schema: str = "main"):
        self.conn, self.schema, self.written = conn, schema, 0
        # one INSERT per batch from an Arrow table: executemany costs about 3 ms per row
        self._sql = (
            f"insert or replace into {schema}.{CACHE_TABLE} ({', '.join(CACHE_COLUMNS)}) "
            f"select {', '.join(CACHE_COLUMNS)} from batch"
        )
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="judge-cache-writer", daemon=True)
        self._thread.start()

    def write(self, row: dict) -> None:
        if self._error is not None:
            raise RuntimeError(f"the judge cache writer failed: {self._error}") from self._error
        self._queue.put({name: row.get(name) for name in CACHE_COLUMNS})

    def _run(self) -> None:
        pending: list[dict] = []
        deadline = time.monotonic() + COMMIT_INTERVAL_S
        while True:
            try:
                item = self._queue.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                item = None
            if item is _STOP:
                self._commit(pending)
                return
            if item is not None:
                pending.append(item)
            if len(pending) >= COMMIT_EVERY or time.monotonic() >= deadline:
                self._commit(pending)
                pending = []
                deadline = time.monotonic() + COMMIT_INTERVAL_S

    def _commit(self, rows: list[dict]) -> None:
        if not rows or self._error is not None:
            return
        batch = pl.DataFrame(rows, schema=OUTPUT_SCHEMA).to_arrow()  # noqa: F841 (read by DuckDB by name)
        try:
            self.conn.execute("begin transaction")
            self.conn.execute(self._sql)
            self.conn.execute("commit")
            self.written += len(rows)
        except BaseException as exc:  # noqa: BLE001 - surfaced by write() and close()
            self._error = exc
            try:
                self.conn.execute("rollback")
            except duckdb.Error:
                pass

    def close(self) -> None:
        """Commit what is left, stop the thread, and fold the write-ahead log into the file."""
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()
        if self._error is not None:
            raise RuntimeError(f"the judge cache writer failed: {self._error}") from self._error
        try:
            self.conn.execute("checkpoint")
        except duckdb.Error:
            pass  # another transaction open in this process: the WAL already holds every committed row


_STOP = object()


def partition_rows(
    conn: duckdb.DuckDBPyConnection,
    requests: pl.DataFrame,
    judge: str,
    condition: str,
    epoch: int,
    schema: str = "main",
) -> pl.DataFrame:
    """The cached row of every request of the partition (missing requests have none)."""
    keys = requests.select("attempt_uid", "request_hash")  # noqa: F841 (read by DuckDB by name)
    table = conn.execute(
        f"select c.* from {schema}.{CACHE_TABLE} c join keys k using (attempt_uid, request_hash) "
        "where c.judge = ? and c.condition = ? and c.epoch = ? order by c.attempt_uid",
        [judge, condition, epoch],
    ).pl()
    return table.cast(OUTPUT_SCHEMA) if len(table) else pl.DataFrame(schema=OUTPUT_SCHEMA)
