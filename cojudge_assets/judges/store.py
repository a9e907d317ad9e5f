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
from dataclasses import dataclass
from datetime import UTC, datetime

import duckdb
import polars as pl

from cojudge_assets.core.frames import insert_in_slices
from cojudge_assets.core.judging.imported import REJECT_COLUMNS

CACHE_TABLE = "judge_cache"
EPOCHS_TABLE = "judge_epochs"
SETTINGS_TABLE = "judge_settings"
IMPORTS_TABLE = "judge_imports"  # what each imported partition was read from (judges/imports.py)
REJECTS_TABLE = "import_rejects"  # the source rows an import could not take, by file, line and field
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
    "batch_id": ("VARCHAR", pl.String),  # mode batch (judges/batch.py): the provider's batch the answer came from
    "batch_files": ("VARCHAR", pl.String),  # and its files: "input=ID;output=ID;error=ID"
    # AXIOM's 0-5 score where the request asked for it (graded programs); last, so that older partitioned tables
    # take it as a new column at the end (defs/io.py)
    "score": ("INTEGER", pl.Int32),
}
ADDED_COLUMNS = (
    "provenance",
    "source",
    "batch_id",
    "batch_files",
    "score",
)  # columns newer than the first cache tables: added to older files
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


IMPORT_RECORD = pl.Schema(  # a row of IMPORTS_TABLE
    [
        *((name, pl.String()) for name in ("judge", "condition", "source", "sha256")),
        *((name, pl.Int32()) for name in ("requests", "ok", "invalid", "rejected", "unanswered")),
        ("imported_at", pl.Datetime("us")),
    ]
)
REJECT_ROWS = pl.Schema([("condition", pl.String()), *REJECT_COLUMNS.items()])  # a row of REJECTS_TABLE


@dataclass(frozen=True)
class ImportedPartition:
    """What an import puts in the store for one judge x condition (judges/imports.py): its answer rows
    (``OUTPUT_SCHEMA``, in ``epoch``), its rejected source rows (``REJECT_ROWS``) and its record
    (``IMPORT_RECORD``, one row). A store replaces the partition's rows with these in one transaction."""

    judge: str
    condition: str
    epoch: int
    rows: pl.DataFrame
    rejects: pl.DataFrame
    record: dict


def ensure_import_tables(conn: duckdb.DuckDBPyConnection, schema: str = "main") -> None:
    ensure_tables(conn, schema)
    conn.execute(
        f"create table if not exists {schema}.{IMPORTS_TABLE} (judge VARCHAR, condition VARCHAR, "
        "source VARCHAR, sha256 VARCHAR, requests INTEGER, ok INTEGER, invalid INTEGER, rejected INTEGER, "
        "unanswered INTEGER, imported_at TIMESTAMP, primary key (judge, condition))"
    )
    columns = ", ".join(
        f"{name} {'BIGINT' if dtype == pl.Int64 else 'VARCHAR'}" for name, dtype in REJECT_COLUMNS.items()
    )
    conn.execute(f"create table if not exists {schema}.{REJECTS_TABLE} (condition VARCHAR, {columns})")


def replace_imported(conn: duckdb.DuckDBPyConnection, part: ImportedPartition, schema: str = "main") -> None:
    """Replace the judge's rows of the partition's condition and epoch in the cache, its rejects and its record,
    in one transaction."""
    ensure_import_tables(conn, schema)
    reject_rows = part.rejects.select(list(REJECT_ROWS)).to_arrow()  # noqa: F841 (read by DuckDB by name)
    conn.execute("begin transaction")
    try:
        conn.execute(
            f"delete from {schema}.{CACHE_TABLE} where judge = ? and condition = ? and epoch = ?",
            [part.judge, part.condition, part.epoch],
        )
        insert_in_slices(conn, f"{schema}.{CACHE_TABLE}", part.rows, columns=list(CACHE_COLUMNS))
        conn.execute(
            f"delete from {schema}.{REJECTS_TABLE} where judge = ? and condition = ?", [part.judge, part.condition]
        )
        conn.execute(f"insert into {schema}.{REJECTS_TABLE} select * from reject_rows")
        conn.execute(
            f"insert or replace into {schema}.{IMPORTS_TABLE} ({', '.join(IMPORT_RECORD)}) "
            f"values ({', '.join('?' for _ in IMPORT_RECORD)})",
            [part.record[name] for name in IMPORT_RECORD],
        )
        conn.execute("commit")
    except BaseException:
        conn.execute("rollback")
        raise


def has_table(conn: duckdb.DuckDBPyConnection, table: str, schema: str = "main") -> bool:
    """Whether the table exists (a reader asks this rather than create it: its connection may be read-only)."""
    found = conn.execute(
        "select count(*) from information_schema.tables where table_schema = ? and table_name = ?", [schema, table]
    ).fetchone()
    return bool(found and found[0])


def import_rejects(conn: duckdb.DuckDBPyConnection, judge: str, condition: str, schema: str = "main") -> pl.DataFrame:
    """The rejected source rows of one imported partition (``REJECT_ROWS``), by source line."""
    if not has_table(conn, REJECTS_TABLE, schema):
        return pl.DataFrame(schema=REJECT_ROWS)
    return (
        conn.execute(
            f"select * from {schema}.{REJECTS_TABLE} where judge = ? and condition = ? "
            "order by source_file, source_line",
            [judge, condition],
        )
        .pl()
        .cast(REJECT_ROWS)
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


class BatchingWriter:
    """Upserts rows from a writer thread, committing at least every ``COMMIT_EVERY`` rows or
    ``COMMIT_INTERVAL_S`` seconds, whichever comes first; a backend says how a batch is committed
    (:meth:`_commit`) and a row kept until then (:meth:`_row`).

    The judging loop only puts rows on a queue: a commit (about 3 ms) never stalls the event
    loop that is waiting on the judges. Only the writer thread touches the connection until
    :meth:`close` returns.
    """

    def __init__(self) -> None:
        self.written = 0
        self._queue: queue.Queue = queue.Queue()
        self._error: BaseException | None = None
        self._thread = threading.Thread(target=self._run, name="judge-cache-writer", daemon=True)
        self._thread.start()

    def _row(self, row: dict):
        return {name: row.get(name) for name in CACHE_COLUMNS}

    def _commit(self, rows: list) -> None:
        raise NotImplementedError

    def write(self, row: dict) -> None:
        if self._error is not None:
            raise RuntimeError(f"the judge cache writer failed: {self._error}") from self._error
        self._queue.put(self._row(row))

    def _run(self) -> None:
        pending: list = []
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

    def _stop(self) -> None:
        """Commit what is left and stop the thread; raise what a commit raised."""
        if self._thread.is_alive():
            self._queue.put(_STOP)
            self._thread.join()
        if self._error is not None:
            raise RuntimeError(f"the judge cache writer failed: {self._error}") from self._error


class CacheWriter(BatchingWriter):
    """The DuckDB file's writer (:class:`BatchingWriter`): one INSERT OR REPLACE a batch, from an Arrow table."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, schema: str = "main"):
        self.conn, self.schema = conn, schema
        # one INSERT per batch from an Arrow table: executemany costs about 3 ms per row
        self._sql = (
            f"insert or replace into {schema}.{CACHE_TABLE} ({', '.join(CACHE_COLUMNS)}) "
            f"select {', '.join(CACHE_COLUMNS)} from batch"
        )
        super().__init__()

    def _commit(self, rows: list) -> None:
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
        self._stop()
        try:
            self.conn.execute("checkpoint")
        except duckdb.Error:
            pass  # another transaction open in this process: the WAL already holds every committed row


_STOP = object()
# DuckDB loses updates to one row from connections of one database updating it at once (duckdb 1.5.6: 4 threads x
# 40 reserve-and-settle pairs on one ledger row end with 9.5 of 20.0 spent and 21.0 of 0 reserved; no conflict is
# raised for most of them), and only one process writes a DuckDB file: the ledger's statements take this lock
_LEDGER_LOCK = threading.Lock()


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


class DuckDBStore:
    """The judge cache and its side tables in a DuckDB file (the embedded profile): the functions above, over one
    connection. :class:`cojudge_assets.judges.postgres_store.PostgresStore` is the same interface on Postgres."""

    def __init__(self, conn: duckdb.DuckDBPyConnection, schema: str = "main"):
        self.conn, self.schema = conn, schema

    def ensure_tables(self) -> None:
        ensure_tables(self.conn, self.schema)

    def current_epoch(self, judge: str) -> int:
        return current_epoch(self.conn, judge, self.schema)

    def settled_epoch(self, judge: str, settings: dict) -> int:
        return settled_epoch(self.conn, judge, settings, self.schema)

    def valid_keys(self, judge: str, condition: str, epoch: int) -> set[tuple[str, str]]:
        return valid_keys(self.conn, judge, condition, epoch, self.schema)

    def writer(self) -> CacheWriter:
        return CacheWriter(self.conn, self.schema)

    def partition_rows(self, requests: pl.DataFrame, judge: str, condition: str, epoch: int) -> pl.DataFrame:
        return partition_rows(self.conn, requests, judge, condition, epoch, self.schema)

    def replace_imported(self, part: ImportedPartition) -> None:
        replace_imported(self.conn, part, self.schema)

    def import_rejects(self, judge: str, condition: str) -> pl.DataFrame:
        return import_rejects(self.conn, judge, condition, self.schema)

    def batch_ledger(self):
        """The judge's batches and their requests (judges/batch.py ``BatchLedger``) in this file."""
        from cojudge_assets.judges.batch import duckdb_ledger

        return duckdb_ledger(self.conn, self.schema)

    def spending(self, judge: str) -> tuple[float, float | None]:
        """(USD the judge's stored answers cost, their mean output tokens or None): the budget's and the
        estimate's figures."""
        return spending(self.conn, judge, self.schema)

    def run_ledger(self):
        """What each run and judge spent and holds reserved (judges/estimate.py ``RunLedger``) in this file, each
        statement on a connection of its own, closed after it (the cache writer's thread uses this one; none is left
        holding the file open), one statement at a time in this process (``_LEDGER_LOCK``: DuckDB loses concurrent
        updates of one row); a write that loses a race to another (a conflict, or the run's first row inserted by
        another at once) is retried."""
        from cojudge_assets.judges.estimate import RunLedger

        def execute(sql: str, params: list) -> list[tuple]:
            with _LEDGER_LOCK, self.conn.cursor() as cursor:
                cursor.execute(sql, params)
                return cursor.fetchall() if cursor.description else []

        ledger = RunLedger(execute, self.schema, conflicts=(duckdb.TransactionException, duckdb.ConstraintException))
        ledger.ensure()
        return ledger

    def read_table(self, name: str) -> pl.DataFrame | None:
        """One store table whole (None when it does not exist): for the small side tables (epochs, drift events,
        imports, rejects), never the judge cache (:meth:`valid_answers`, :meth:`accounting` read it by slice)."""
        if not has_table(self.conn, name, self.schema):
            return None
        return self.conn.execute(f"select * from {self.schema}.{name}").pl()

    def valid_answers(self, judges: list[str], columns: tuple[str, ...]) -> pl.DataFrame:
        """The ``columns`` of the judge cache's valid answers (status ok) of ``judges``, every epoch."""
        schema = answer_columns(columns)
        if not judges or not has_table(self.conn, CACHE_TABLE, self.schema):
            return pl.DataFrame(schema=schema)
        return (
            self.conn.execute(
                f"select {', '.join(columns)} from {self.schema}.{CACHE_TABLE} where status = 'ok' and "
                f"judge in ({', '.join('?' for _ in judges)})",
                judges,
            )
            .pl()
            .cast(schema)
        )

    def served_model(self, judge: str) -> str | None:
        """The commonest served model on the judge's valid answers of its current epoch (judges/drift.py)."""
        from cojudge_assets.judges.drift import recorded_identity

        return recorded_identity(self.conn, judge, self.schema)

    def drift_epochs(self) -> dict[str, int]:
        """{judge: the epoch its last provider drift opened} (judges/drift.py)."""
        from cojudge_assets.judges.drift import drift_epochs

        return drift_epochs(self.conn, self.schema)

    def record_drift(self, judge: str, old_model: str | None, new_model: str, reason: str) -> int:
        """A provider drift: the judge's next epoch opened and the event recorded (judges/drift.py)."""
        from cojudge_assets.judges.drift import record_drift

        return record_drift(self.conn, judge, old_model, new_model, reason, self.schema)

    def accounting(self, contest: pl.DataFrame) -> pl.DataFrame:
        """The judge cache counted (:data:`ACCOUNTING_SQL`): one row per judge x condition x epoch x served model x
        status x repaired x whether the attempt is one of ``contest``'s (column attempt_uid)."""
        if not has_table(self.conn, CACHE_TABLE, self.schema):
            return pl.DataFrame(schema=ACCOUNTING_SCHEMA)
        contest_uids = contest.select("attempt_uid").unique()  # noqa: F841 (read by name by DuckDB)
        sql = ACCOUNTING_SQL.format(cache=f"{self.schema}.{CACHE_TABLE}", contest="contest_uids")
        return self.conn.execute(sql).pl().cast(ACCOUNTING_SCHEMA)


def answer_columns(columns: tuple[str, ...]) -> pl.Schema:
    unknown = set(columns) - set(OUTPUT_SCHEMA)
    if unknown:
        raise ValueError(f"judge cache: no columns {sorted(unknown)} (it has {', '.join(OUTPUT_SCHEMA)})")
    return pl.Schema({name: OUTPUT_SCHEMA[name] for name in columns})


# what the report says of the judge cache, counted where the cache is (the report never copies the cache): rows per
# judge x condition x epoch x served model x status, repaired (valid after re-asking), contest (an attempt of the
# contest, not a mutant), and their cost
ACCOUNTING_SQL = """
    select c.judge, c.condition, c.epoch, c.served_model, c.status,
           c.validation_failures > 0 as repaired,  -- null (not recorded) stays null, as the report counted it
           c.attempt_uid in (select attempt_uid from {contest}) as contest,
           count(*) as answers, sum(c.cost) as cost
    from {cache} c
    group by 1, 2, 3, 4, 5, 6, 7
"""
ACCOUNTING_SCHEMA = pl.Schema(
    {
        "judge": pl.String,
        "condition": pl.String,
        "epoch": pl.Int32,
        "served_model": pl.String,
        "status": pl.String,
        "repaired": pl.Boolean,
        "contest": pl.Boolean,
        "answers": pl.Int64,
        "cost": pl.Float64,
    }
)


def spending(conn: duckdb.DuckDBPyConnection, judge: str, schema: str = "main") -> tuple[float, float | None]:
    row = conn.execute(
        f"select coalesce(sum(cost), 0), avg(output_tokens) from {schema}.{CACHE_TABLE} where judge = ?", [judge]
    ).fetchone()
    return (float(row[0]), float(row[1]) if row[1] is not None else None) if row else (0.0, None)
