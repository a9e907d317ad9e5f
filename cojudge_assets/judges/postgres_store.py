"""The judge cache and its side tables in Postgres (the deployed profile), through psycopg2.

The same interface and the same guarantee as the DuckDB store (judges/store.py :class:`DuckDBStore`): every answer
is upserted as it arrives (``insert ... on conflict (key) do update``, the DuckDB store's ``insert or replace``) by
a writer thread that commits at least every ``COMMIT_EVERY`` rows and every ``COMMIT_INTERVAL_S`` seconds, so a
``kill -9`` of the run loses no committed row and the re-run sends only what has no answered row. Several runs
(judge partitions in different processes, on different machines) write at once: each upsert is its own
transaction on the key, and opening a judge's next epoch is serialized by a transaction-scoped advisory lock on
the judge, so two partitions of one judge settle on the same epoch.

Tables live in the schema ``cojudge`` of the deployment's database (beside Dagster's own tables), with the DuckDB
store's names and columns: ``judge_cache``, ``judge_epochs``, ``judge_settings``, ``drift_events``, and the imported
judges' ``judge_imports`` and ``import_rejects`` (judges/imports.py: an import replaces its partition's rows in one
transaction, as in DuckDB).
"""

from __future__ import annotations

import io
import json
import re
import zlib
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import UTC, datetime

import polars as pl

from cojudge_assets.judges.store import (
    ACCOUNTING_SCHEMA,
    ACCOUNTING_SQL,
    ADDED_COLUMNS,
    ANSWERED_STATUSES,
    CACHE_COLUMNS,
    CACHE_TABLE,
    EPOCHS_TABLE,
    IMPORT_RECORD,
    IMPORTS_TABLE,
    KEY,
    OUTPUT_SCHEMA,
    REJECT_ROWS,
    REJECTS_TABLE,
    SETTINGS_TABLE,
    BatchingWriter,
    ImportedPartition,
    answer_columns,
)

SCHEMA = "cojudge"
STORE_DDL_LOCK = zlib.crc32(b"cojudge-store-tables")  # the advisory lock every `create ... if not exists` is under
DRIFT_TABLE = "drift_events"
CONNECT_TIMEOUT_S = 5  # an unreachable server is refused after this, never waited on
STORE_TABLES = (CACHE_TABLE, EPOCHS_TABLE, SETTINGS_TABLE, DRIFT_TABLE, IMPORTS_TABLE, REJECTS_TABLE)
_TS: pl.DataType = pl.Datetime("us")
_TEXT: pl.DataType = pl.String()
_INT: pl.DataType = pl.Int32()
TABLE_SCHEMAS = {  # the DuckDB store's column types (judges/store.py, judges/drift.py), for the readers' snapshot
    CACHE_TABLE: OUTPUT_SCHEMA,
    EPOCHS_TABLE: pl.Schema({"judge": _TEXT, "epoch": _INT, "reason": _TEXT, "started_at": _TS}),
    SETTINGS_TABLE: pl.Schema({"judge": _TEXT, "epoch": _INT, "settings": _TEXT, "recorded_at": _TS}),
    DRIFT_TABLE: pl.Schema(
        {
            "judge": _TEXT,
            "old_identity": _TEXT,
            "new_identity": _TEXT,
            "seen_at": _TS,
            "old_epoch": _INT,
            "new_epoch": _INT,
        }
    ),
    IMPORTS_TABLE: IMPORT_RECORD,
    REJECTS_TABLE: REJECT_ROWS,
}

_PG_TYPES = {"VARCHAR NOT NULL": "TEXT NOT NULL", "INTEGER NOT NULL": "INTEGER NOT NULL", "VARCHAR": "TEXT"}
_PG_TYPES |= {"DOUBLE": "DOUBLE PRECISION", "TIMESTAMP": "TIMESTAMP"}
_PL_TYPES = {pl.String: "TEXT", pl.Int32: "INTEGER", pl.Int64: "BIGINT", pl.Datetime: "TIMESTAMP"}


class StoreUnreachable(RuntimeError):
    """The Postgres server of the judge cache cannot be reached, or refuses this role (the message names the setting
    and which of the cases below it is). ``kind``: ``down`` (nothing answers at the host and port), ``missing`` (the
    server answers; the role or the database does not exist), ``auth`` (the server refused the role's
    authentication), ``other``."""

    def __init__(self, message: str, kind: str = "other"):
        super().__init__(message)
        self.kind = kind


_DOWN = (
    "connection refused",
    "could not connect",
    "timeout expired",
    "could not translate host name",
    "no such file or directory",
    "network is unreachable",
    "no route to host",
    "server closed the connection",
)
_AUTH = (
    "password authentication failed",
    "no password supplied",
    "authentication failed",
    "fe_sendauth",
    "peer authentication",
    "no pg_hba.conf entry",
)


def _target(dsn: str) -> tuple[str, str, str]:
    """The server (host:port), role and database a libpq DSN or URL names, as libpq resolves them (its variables
    PGHOST, PGPORT, PGUSER, PGDATABASE included), for a message: never the password."""
    import getpass
    import os

    from psycopg2.extensions import parse_dsn

    try:
        params = parse_dsn(dsn)
    except Exception:  # noqa: BLE001 - a DSN libpq cannot parse: named by the error itself
        params = {}
    host = params.get("host") or os.environ.get("PGHOST") or "the local socket"
    port = params.get("port") or os.environ.get("PGPORT") or "5432"
    user = params.get("user") or os.environ.get("PGUSER") or getpass.getuser()
    return f"{host}:{port}", user, params.get("dbname") or os.environ.get("PGDATABASE") or user


def connect(dsn: str, setting: str = "COJUDGE_POSTGRES_URL"):
    """A psycopg2 connection, refused within ``CONNECT_TIMEOUT_S`` seconds naming ``setting``, the server, and which
    failure it is: the server down, the role or the database missing, or the authentication refused
    (:class:`StoreUnreachable`)."""
    import psycopg2

    try:
        return psycopg2.connect(dsn, connect_timeout=CONNECT_TIMEOUT_S, application_name="cojudge")
    except psycopg2.OperationalError as exc:
        text = str(exc).strip()
        lines = [line.strip() for line in text.splitlines() if line.strip()]
        first = next((line for line in lines if "FATAL" in line), lines[0] if lines else type(exc).__name__)
        lowered = text.lower()
        server, role, _ = _target(dsn)
        if missing := re.search(r'(role|database) "([^"]*)" does not exist', text):
            what = f'{missing.group(1)} "{missing.group(2)}"'
            raise StoreUnreachable(
                f"{setting}: the Postgres server at {server} answers, but {what} does not exist ({first}); create "
                "the role and the database (docs/operations.md, Runbook, step 2) or fix the URL",
                "missing",
            ) from None
        if any(word in lowered for word in _AUTH):
            raise StoreUnreachable(
                f'{setting}: the Postgres server at {server} refused the authentication of role "{role}" ({first}); '
                "give libpq the role's password in PGPASSWORD or ~/.pgpass (PGPASSFILE), never in the URL, or allow "
                "the role in pg_hba.conf (docs/operations.md, Runbook)",
                "auth",
            ) from None
        if any(word in lowered for word in _DOWN):
            raise StoreUnreachable(
                f"{setting}: no Postgres server answers at {server} within {CONNECT_TIMEOUT_S} s ({first}); start it "
                "(docs/operations.md, Runbook) or fix the host and port in the URL",
                "down",
            ) from None
        raise StoreUnreachable(
            f"{setting}: cannot connect to the Postgres server at {server} ({first}); see docs/operations.md, Runbook",
            "other",
        ) from None


def _pg(sql_type: str) -> str:
    return _PG_TYPES.get(sql_type, sql_type)


def _columns(schema: pl.Schema) -> str:
    """Postgres column definitions for a table whose columns are given as a polars schema."""
    return ", ".join(f"{name} {_PL_TYPES[dtype.base_type()]}" for name, dtype in schema.items())


class PostgresStore:
    """The judge store on one psycopg2 connection (autocommit: each statement or explicit block is its own
    transaction)."""

    def __init__(self, dsn: str, schema: str = SCHEMA):
        self.dsn, self.schema = dsn, schema
        self.conn = connect(dsn)
        self.conn.autocommit = True

    def close(self) -> None:
        self.conn.close()

    def _fetch(self, sql: str, params: tuple | list = ()) -> list[tuple]:
        with self.conn.cursor() as cur:
            cur.execute(sql, params)
            return cur.fetchall() if cur.description else []

    @contextmanager
    def _transaction(self) -> Iterator:
        with self.conn.cursor() as cur:
            cur.execute("begin")
            try:
                yield cur
            except BaseException:
                cur.execute("rollback")
                raise
            cur.execute("commit")

    def ensure_tables(self) -> None:
        columns = ", ".join(f"{name} {_pg(sql)}" for name, (sql, _) in CACHE_COLUMNS.items())
        s = self.schema
        with self._transaction() as cur:
            # concurrent first runs: one creates, the others wait on the lock and find the tables
            cur.execute("select pg_advisory_xact_lock(%s)", [STORE_DDL_LOCK])
            cur.execute(f"create schema if not exists {s}")
            cur.execute(f"create table if not exists {s}.{CACHE_TABLE} ({columns}, primary key ({', '.join(KEY)}))")
            for name in ADDED_COLUMNS:  # columns newer than the first cache tables
                cur.execute(
                    f"alter table {s}.{CACHE_TABLE} add column if not exists {name} {_pg(CACHE_COLUMNS[name][0])}"
                )
            cur.execute(
                f"create table if not exists {s}.{EPOCHS_TABLE} (judge TEXT, epoch INTEGER, reason TEXT, "
                "started_at TIMESTAMP, primary key (judge, epoch))"
            )
            cur.execute(
                f"create table if not exists {s}.{SETTINGS_TABLE} (judge TEXT, epoch INTEGER, settings TEXT, "
                "recorded_at TIMESTAMP, primary key (judge, epoch))"
            )
            cur.execute(
                f"create table if not exists {s}.{DRIFT_TABLE} (judge TEXT NOT NULL, old_identity TEXT, "
                "new_identity TEXT, seen_at TIMESTAMP, old_epoch INTEGER, new_epoch INTEGER)"
            )
            imports = f"{_columns(IMPORT_RECORD)}, primary key (judge, condition)"
            cur.execute(f"create table if not exists {s}.{IMPORTS_TABLE} ({imports})")
            cur.execute(f"create table if not exists {s}.{REJECTS_TABLE} ({_columns(REJECT_ROWS)})")

    def current_epoch(self, judge: str, cur=None) -> int:
        sql = f"select max(epoch) from {self.schema}.{EPOCHS_TABLE} where judge = %s"
        if cur is None:
            rows = self._fetch(sql, [judge])
        else:
            cur.execute(sql, [judge])
            rows = cur.fetchall()
        return int(rows[0][0]) if rows and rows[0][0] is not None else 0

    def _settings_of_epoch(self, cur, judge: str, epoch: int) -> dict | None:
        cur.execute(
            f"select settings from {self.schema}.{SETTINGS_TABLE} where judge = %s and epoch = %s", [judge, epoch]
        )
        row = cur.fetchone()
        return json.loads(row[0]) if row else None

    def settled_epoch(self, judge: str, settings: dict) -> int:
        """As judges/store.py ``settled_epoch``, in one transaction holding the judge's advisory lock: partitions
        of one judge running at once settle on one epoch, and open the next one once."""
        settings = json.loads(json.dumps(settings))
        now = datetime.now(UTC).replace(tzinfo=None)
        with self._transaction() as cur:
            cur.execute("select pg_advisory_xact_lock(%s)", [zlib.crc32(f"cojudge-epoch:{judge}".encode())])
            epoch = self.current_epoch(judge, cur)
            recorded = self._settings_of_epoch(cur, judge, epoch)
            change = (
                ""
                if recorded is None or recorded == settings
                else ", ".join(
                    f"{name} {recorded.get(name)!r} -> {value!r}"
                    for name, value in settings.items()
                    if recorded.get(name) != value
                )
            )
            if change:
                epoch += 1
                cur.execute(
                    f"insert into {self.schema}.{EPOCHS_TABLE} values (%s, %s, %s, %s)",
                    [judge, epoch, f"judges file changed: {change}", now],
                )
            if change or recorded is None:
                cur.execute(
                    f"insert into {self.schema}.{SETTINGS_TABLE} values (%s, %s, %s, %s) on conflict do nothing",
                    [judge, epoch, json.dumps(settings, sort_keys=True), now],
                )
        return epoch

    def start_epoch(self, judge: str, reason: str) -> int:
        with self._transaction() as cur:
            cur.execute("select pg_advisory_xact_lock(%s)", [zlib.crc32(f"cojudge-epoch:{judge}".encode())])
            epoch = self.current_epoch(judge, cur) + 1
            cur.execute(
                f"insert into {self.schema}.{EPOCHS_TABLE} values (%s, %s, %s, %s)",
                [judge, epoch, reason, datetime.now(UTC).replace(tzinfo=None)],
            )
        return epoch

    def record_drift(self, judge: str, old_model: str | None, new_model: str, reason: str) -> int:
        """A provider drift: the judge's next epoch opened and the event recorded (judges/drift.py)."""
        old_epoch = self.current_epoch(judge)
        epoch = self.start_epoch(judge, reason)
        self._fetch(
            f"insert into {self.schema}.{DRIFT_TABLE} values (%s, %s, %s, %s, %s, %s)",
            [judge, old_model, new_model, datetime.now(UTC).replace(tzinfo=None), old_epoch, epoch],
        )
        return epoch

    def served_model(self, judge: str) -> str | None:
        """The commonest served model on the judge's valid answers of its current epoch, counted on the server
        (judges/drift.py ``recorded_identity``)."""
        if not (self._has(CACHE_TABLE) and self._has(EPOCHS_TABLE)):
            return None
        rows = self._fetch(
            f"select served_model, count(*) n from {self.schema}.{CACHE_TABLE} where judge = %s and epoch = %s "
            "and status = 'ok' and coalesce(served_model, '') <> '' group by 1 order by n desc, 1 limit 1",
            [judge, self.current_epoch(judge)],
        )
        return rows[0][0] if rows else None

    def drift_epochs(self) -> dict[str, int]:
        """{judge: the epoch its last provider drift opened} (judges/drift.py ``drift_epochs``)."""
        if not self._has(DRIFT_TABLE):
            return {}
        rows = self._fetch(f"select judge, max(new_epoch) from {self.schema}.{DRIFT_TABLE} group by judge")
        return {judge: int(epoch) for judge, epoch in rows}

    def valid_keys(self, judge: str, condition: str, epoch: int) -> set[tuple[str, str]]:
        rows = self._fetch(
            f"select attempt_uid, request_hash from {self.schema}.{CACHE_TABLE} where judge = %s and "
            "condition = %s and epoch = %s and status = any(%s)",
            [judge, condition, epoch, list(ANSWERED_STATUSES)],
        )
        return {(a, h) for a, h in rows}

    def writer(self) -> PostgresCacheWriter:
        return PostgresCacheWriter(self.dsn, self.schema)

    def partition_rows(self, requests: pl.DataFrame, judge: str, condition: str, epoch: int) -> pl.DataFrame:
        """The stored row of every request of the partition (missing requests have none), as the DuckDB store
        gives them: the cache's columns and types, ordered by attempt_uid."""
        with self.conn.cursor() as cur:
            cur.execute(
                f"select {', '.join(CACHE_COLUMNS)} from {self.schema}.{CACHE_TABLE} "
                "where judge = %s and condition = %s and epoch = %s",
                [judge, condition, epoch],
            )
            rows = cur.fetchall()
        table = pl.DataFrame(rows, schema=OUTPUT_SCHEMA, orient="row")
        keys = requests.select("attempt_uid", "request_hash").unique()
        return table.join(keys, on=["attempt_uid", "request_hash"], how="semi").sort("attempt_uid")

    def replace_imported(self, part: ImportedPartition) -> None:
        """As judges/store.py ``replace_imported``: the partition's cache rows, rejects and record replaced in one
        transaction, under an advisory lock on the partition (two runs of it at once: one after the other)."""
        from psycopg2.extras import execute_values

        s, names = self.schema, list(CACHE_COLUMNS)
        updates = ", ".join(f"{n} = excluded.{n}" for n in IMPORT_RECORD if n not in ("judge", "condition"))
        with self._transaction() as cur:
            cur.execute(
                "select pg_advisory_xact_lock(%s)",
                [zlib.crc32(f"cojudge-import:{part.judge}:{part.condition}".encode())],
            )
            cur.execute(
                f"delete from {s}.{CACHE_TABLE} where judge = %s and condition = %s and epoch = %s",
                [part.judge, part.condition, part.epoch],
            )
            execute_values(
                cur,
                f"insert into {s}.{CACHE_TABLE} ({', '.join(names)}) values %s",
                part.rows.select(names).rows(),
            )
            cur.execute(
                f"delete from {s}.{REJECTS_TABLE} where judge = %s and condition = %s", [part.judge, part.condition]
            )
            execute_values(
                cur,
                f"insert into {s}.{REJECTS_TABLE} ({', '.join(REJECT_ROWS)}) values %s",
                part.rejects.select(list(REJECT_ROWS)).rows(),
            )
            cur.execute(
                f"insert into {s}.{IMPORTS_TABLE} ({', '.join(IMPORT_RECORD)}) "
                f"values ({', '.join('%s' for _ in IMPORT_RECORD)}) "
                f"on conflict (judge, condition) do update set {updates}",
                [part.record[n] for n in IMPORT_RECORD],
            )

    def batch_ledger(self):
        """The judge's batches and their requests (judges/batch.py ``BatchLedger``) in this database."""
        from cojudge_assets.judges.batch import BatchLedger

        return BatchLedger(self._fetch, self.schema, param="%s")

    def run_ledger(self):
        """What each run spent and holds reserved (judges/estimate.py ``RunLedger``) in this database: a reservation
        is one conditional UPDATE of the run's row, which Postgres serializes on the row's lock."""
        from cojudge_assets.judges.estimate import RunLedger

        ledger = RunLedger(self._fetch, self.schema, param="%s")
        with self._transaction() as cur:  # concurrent first runs: one creates, the others wait and find it
            cur.execute("select pg_advisory_xact_lock(%s)", [STORE_DDL_LOCK])
            cur.execute(f"create schema if not exists {self.schema}")
            cur.execute(ledger.ddl())
        return ledger

    def spending(self, judge: str) -> tuple[float, float | None]:
        """(USD the judge's stored answers cost, their mean output tokens or None), as the DuckDB store's."""
        rows = self._fetch(
            f"select coalesce(sum(cost), 0), avg(output_tokens) from {self.schema}.{CACHE_TABLE} where judge = %s",
            [judge],
        )
        return float(rows[0][0]), float(rows[0][1]) if rows[0][1] is not None else None

    def import_rejects(self, judge: str, condition: str) -> pl.DataFrame:
        """The rejected source rows of one imported partition, as the DuckDB store gives them."""
        rows = self._fetch(
            f"select {', '.join(REJECT_ROWS)} from {self.schema}.{REJECTS_TABLE} where judge = %s and condition = %s "
            "order by source_file, source_line",
            [judge, condition],
        )
        return pl.DataFrame(rows, schema=REJECT_ROWS, orient="row")

    def cache_rows(self, judge: str | None, condition: str | None, columns: tuple[str, ...]) -> pl.DataFrame:
        """The judge cache's ``columns`` for one judge x condition (a measurement partition's reader; None: every
        judge, or every condition): a filtered query, so only those rows leave the server, never a copy of the
        store."""
        unknown = set(columns) - set(OUTPUT_SCHEMA)
        if unknown:
            raise ValueError(f"judge cache: no columns {sorted(unknown)} (it has {', '.join(OUTPUT_SCHEMA)})")
        found = self._fetch(
            "select count(*) from information_schema.tables where table_schema = %s and table_name = %s",
            [self.schema, CACHE_TABLE],
        )
        schema = {name: OUTPUT_SCHEMA[name] for name in columns}
        if not found or not found[0][0]:
            return pl.DataFrame(schema=schema)
        where = [(name, value) for name, value in (("judge", judge), ("condition", condition)) if value is not None]
        clause = (" where " + " and ".join(f"{name} = %s" for name, _ in where)) if where else ""
        rows = self._fetch(
            f"select {', '.join(columns)} from {self.schema}.{CACHE_TABLE}{clause}", [value for _, value in where]
        )
        return pl.DataFrame(rows, schema=schema, orient="row")

    def valid_answers(self, judges: list[str], columns: tuple[str, ...]) -> pl.DataFrame:
        """The ``columns`` of the judge cache's valid answers of ``judges``, as the DuckDB store gives them: a
        filtered query, only those judges' rows leave the server."""
        schema = answer_columns(columns)
        if not judges or not self._has(CACHE_TABLE):
            return pl.DataFrame(schema=schema)
        rows = self._fetch(
            f"select {', '.join(columns)} from {self.schema}.{CACHE_TABLE} where status = 'ok' and judge = any(%s)",
            [list(judges)],
        )
        return pl.DataFrame(rows, schema=schema, orient="row")

    def accounting(self, contest: pl.DataFrame) -> pl.DataFrame:
        """The judge cache counted on the server (judges/store.py ``ACCOUNTING_SQL``), as the DuckDB store's: the
        contest's attempt uids go to a temporary table (COPY), the counts come back, never the cache's rows."""
        if not self._has(CACHE_TABLE):
            return pl.DataFrame(schema=ACCOUNTING_SCHEMA)
        uids = io.StringIO(contest.select("attempt_uid").unique().write_csv(include_header=False))
        with self._transaction() as cur:
            cur.execute("create temporary table contest_uids (attempt_uid text primary key) on commit drop")
            cur.copy_expert("copy contest_uids (attempt_uid) from stdin with (format csv)", uids)
            cur.execute(ACCOUNTING_SQL.format(cache=f"{self.schema}.{CACHE_TABLE}", contest="contest_uids"))
            rows = cur.fetchall()
        return pl.DataFrame(rows, schema=ACCOUNTING_SCHEMA, orient="row")

    def _has(self, name: str) -> bool:
        found = self._fetch(
            "select count(*) from information_schema.tables where table_schema = %s and table_name = %s",
            [self.schema, name],
        )
        return bool(found and found[0][0])

    def read_table(self, name: str) -> pl.DataFrame | None:
        """One store table whole (None when it does not exist yet): the small side tables (the DuckDB store's
        ``read_table``); the judge cache is read by slice (``cache_rows``, ``valid_answers``, ``accounting``)."""
        found = self._fetch(
            "select count(*) from information_schema.tables where table_schema = %s and table_name = %s",
            [self.schema, name],
        )
        if not found or not found[0][0]:
            return None
        with self.conn.cursor() as cur:
            cur.execute(f"select * from {self.schema}.{name}")
            names = [d.name for d in cur.description]
            rows = cur.fetchall()
        schema = TABLE_SCHEMAS[name]
        return pl.DataFrame(rows, schema={n: schema[n] for n in names}, orient="row")


class PostgresCacheWriter(BatchingWriter):
    """The Postgres store's writer (judges/store.py :class:`BatchingWriter`): rows queued by the judging loop,
    upserted by a thread of its own on a connection of its own, a batch per commit."""

    def __init__(self, dsn: str, schema: str = SCHEMA):
        self.conn = connect(dsn)
        names = list(CACHE_COLUMNS)
        updates = ", ".join(f"{n} = excluded.{n}" for n in names if n not in KEY)
        self._key_at = [names.index(n) for n in KEY]  # where the key's columns are in a row
        self._sql = (
            f"insert into {schema}.{CACHE_TABLE} ({', '.join(names)}) values %s "
            f"on conflict ({', '.join(KEY)}) do update set {updates}"
        )
        super().__init__()

    def _row(self, row: dict) -> tuple:
        return tuple(row.get(name) for name in CACHE_COLUMNS)

    def _commit(self, rows: list) -> None:
        if not rows or self._error is not None:
            return
        from psycopg2.extras import execute_values

        # one key twice in a batch (a failed try replaced by the next): the last row wins, as in DuckDB
        last = {tuple(row[i] for i in self._key_at): row for row in rows}
        try:
            with self.conn.cursor() as cur:
                execute_values(cur, self._sql, list(last.values()))
            self.conn.commit()
            self.written += len(rows)
        except BaseException as exc:  # noqa: BLE001 - surfaced by write() and close()
            self._error = exc
            self.conn.rollback()

    def close(self) -> None:
        try:
            self._stop()
        finally:
            self.conn.close()
