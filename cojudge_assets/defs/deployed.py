"""The deployed profile's storage: Delta Lake tables for the assets, Postgres for the judge store.

Bound in definitions.py ``build_definitions`` when ``COJUDGE_PROFILE=deployed`` (settings.py); the assets are the
same in both profiles and return and receive polars frames.

* :class:`DeltaTablesIOManager` (dagster-deltalake-polars) writes every asset table as a Delta table under
  ``COJUDGE_TABLES_URI`` (a folder or an object-store URI): a partitioned asset's table is partitioned by its
  dimensions (``partition_expr`` metadata: ``judge_requests`` by condition, ``judge_outputs`` by condition and
  judge, ``perturbation_outputs`` by judge), so runs of different partitions write at once; an unpartitioned
  asset's table is replaced whole by its run (Delta's snapshot isolation: a reader sees the old or the new table,
  never a mix, so unpartitioned runs need no lock or pool of one). Two traps of the library are closed here:

  - a partitioned table that does not exist yet is **created first, with its schema and partition columns**, and
    only then is the partition written by an overwrite limited to it (a predicate on its values). The library
    writes the first partition of a missing table as a whole-table overwrite, so concurrent first writers remove
    each other's files and Dagster reports success for partitions that are gone. Two first writers can both
    create it (delta-rs commits the second create as the next version); a writer that read the table between
    the two creates then fails its commit with "Metadata changed since last commit". The write is an overwrite
    of one partition, the same rows whenever it lands, so it is retried on a failed commit
    (:func:`write_partition`);
  - a reader of several partitions (an unpartitioned asset reading ``judge_outputs``) is filtered with ``isin``
    per dimension; the library's predicate builder refuses array values.

  As with the DuckDB IO manager (defs/io.py), an unpartitioned table is replaced with the frame's own schema,
  empty or not, and a reader of a table that was never written fails naming the asset to materialize.

* :class:`DeployedStores` is the ``duckdb`` resource of the deployed profile. Its ``database`` names the file
  beside which the side files (requests JSONL, figures, the report) go (``COJUDGE_DUCKDB``'s folder); the judging
  path gets the judge store in Postgres from it (:func:`cojudge_assets.defs.resources.judge_store`); and its
  readers of the judge cache (measurement, drift, the report, the judges file's observation) query it through
  that store, by slice or by count, never a copy of it; ``get_connection()`` is a read-only DuckDB snapshot of the
  store's small side tables only (a write through it fails loudly instead of being lost); and ``asset_table``
  reads an unpartitioned asset's own previous Delta table for the assets that extend theirs (design).

* :func:`claim_storage`: one deployment per storage. The first run writes a marker table ``_cojudge_deployment``
  under the tables root naming its Postgres database, and a marker row in that database naming its tables root; a
  deployment that finds another's marker refuses to run, naming both.
"""

from __future__ import annotations

import contextlib
import tempfile
from collections.abc import Iterator, Mapping, Sequence
from pathlib import Path
from urllib.parse import urlsplit

import dagster as dg
import duckdb
import polars as pl
import pyarrow as pa
import pyarrow.compute as pc
from dagster_deltalake import LocalConfig
from dagster_deltalake_polars import DeltaLakePolarsIOManager, DeltaLakePolarsTypeHandler
from dagster_duckdb import DuckDBResource
from tenacity import retry, retry_if_exception, stop_after_attempt, wait_random

from cojudge_assets.core.frames import TableReader
from cojudge_assets.defs.io import ROWS
from cojudge_assets.judges.postgres_store import (
    CACHE_TABLE,
    STORE_DDL_LOCK,
    STORE_TABLES,
    PostgresStore,
    StoreUnreachable,
    connect,
)
from cojudge_assets.settings import (
    POSTGRES_VARIABLE,
    TABLES_VARIABLE,
    database_identity,
    libpq_url,
    provider_limits,
    redact,
    runs_at_once,
)

SCHEMA = "main"  # the tables' folder under the root, as the DuckDB file's schema
MARKER = "_cojudge_deployment"
COMMIT_ATTEMPTS = 8  # a partition write that loses a commit race to another writer is tried again (write_partition)


def table_uri(root: str, table: str, schema: str = SCHEMA) -> str:
    return f"{root.rstrip('/')}/{schema}/{table}"


def _exists(uri: str, storage_options: dict | None = None) -> bool:
    from deltalake import DeltaTable

    return DeltaTable.is_deltatable(uri, storage_options=storage_options)


def ensure_partitioned_table(
    uri: str, schema: pa.Schema, partition_by: list[str], storage_options: dict | None = None
) -> None:
    """Create the Delta table with ``schema`` and its partition columns when it does not exist (trap 1 in the
    module docstring). Several first writers at once: one commit creates it, the others find it."""
    from deltalake import DeltaTable

    if _exists(uri, storage_options):
        return
    try:
        DeltaTable.create(uri, schema=schema, partition_by=partition_by, mode="ignore", storage_options=storage_options)
    except Exception:
        if not _exists(uri, storage_options):  # not the lost race of two creators: a real failure
            raise


def _commit_failed(exc: BaseException) -> bool:
    from deltalake.exceptions import CommitFailedError

    return isinstance(exc, CommitFailedError)


# a write that loses its commit to a concurrent writer's is tried again from a fresh read of the table; both writes
# below are overwrites whose result does not depend on the table they replace, so a repeat writes the same rows
_retried_on_commit_race = retry(
    retry=retry_if_exception(_commit_failed),
    stop=stop_after_attempt(COMMIT_ATTEMPTS),
    wait=wait_random(0.05, 1.0),
    reraise=True,
)


@_retried_on_commit_race
def write_table(uri: str, data: pa.Table, storage_options: dict | None = None) -> None:
    """Replace the whole (unpartitioned) Delta table at ``uri`` with ``data``, its schema included."""
    from deltalake import write_deltalake

    write_deltalake(uri, data, mode="overwrite", schema_mode="overwrite", storage_options=storage_options)


@_retried_on_commit_race
def write_partition(uri: str, data: pa.Table, partition: dict[str, str], storage_options: dict | None = None) -> None:
    """Replace one partition (``partition``: column -> value) of the Delta table at ``uri`` with ``data``, creating
    the table first when it is missing (trap 1 in the module docstring). A commit that fails on a concurrent
    writer's commit is retried from a fresh read of the table; after ``COMMIT_ATTEMPTS`` the error is raised."""
    from deltalake import write_deltalake

    columns = list(partition)
    ensure_partitioned_table(uri, data.schema, columns, storage_options)
    predicate = " AND ".join(f"{column} = {_sql_literal(value)}" for column, value in partition.items())
    write_deltalake(
        uri, data, mode="overwrite", predicate=predicate, partition_by=columns, storage_options=storage_options
    )


def _sql_literal(value: str) -> str:
    return "'" + str(value).replace("'", "''") + "'"


class DeltaTableHandler(DeltaLakePolarsTypeHandler):
    """dagster-deltalake-polars' handler with the two traps closed (module docstring)."""

    # table_slice: the library's TableSlice (schema, table, partition_dimensions, columns); its class is private
    def handle_output(
        self, context: dg.OutputContext, table_slice, obj: pl.DataFrame | pl.LazyFrame, connection
    ) -> None:
        if isinstance(obj, pl.LazyFrame):
            obj = obj.collect()
        data = obj.to_arrow()
        options = connection.storage_options
        dimensions = list(table_slice.partition_dimensions or [])
        if dimensions:
            partition = {d.partition_expr: _one_value(d.partitions) for d in dimensions}
            write_partition(connection.table_uri, data, partition, options)
        else:
            write_table(connection.table_uri, data, options)
        context.add_output_metadata(
            {
                "row_count": obj.height,
                "table_uri": connection.table_uri,
                "dataframe_columns": dg.MetadataValue.table_schema(
                    dg.TableSchema(
                        columns=[dg.TableColumn(name=n, type=str(t)) for n, t in zip(obj.columns, obj.dtypes)]
                    )
                ),
            }
        )

    def load_input(self, context: dg.InputContext, table_slice, connection) -> pl.DataFrame:
        from deltalake import DeltaTable

        if not _exists(connection.table_uri, connection.storage_options):
            upstream = context.upstream_output.asset_key.to_user_string() if context.upstream_output else context.name
            raise dg.Failure(
                description=f"input {context.name}: Delta table {connection.table_uri} of asset {upstream} was "
                f"never written under this tables root; materialize {upstream} first"
            )
        dataset = DeltaTable(connection.table_uri, storage_options=connection.storage_options).to_pyarrow_dataset()
        wanted = None
        for dimension in table_slice.partition_dimensions or []:
            test = pc.field(dimension.partition_expr).isin([str(v) for v in _values(dimension.partitions)])
            wanted = test if wanted is None else wanted & test
        for column, value in ((context.definition_metadata or {}).get(ROWS) or {}).items():  # io.py read_only
            test = pc.field(column) == value
            wanted = test if wanted is None else wanted & test
        table = dataset.to_table(columns=table_slice.columns, filter=wanted)
        frame = pl.from_arrow(table)
        assert isinstance(frame, pl.DataFrame)
        return frame

    @property
    def supported_types(self) -> Sequence[type[object]]:
        return [pl.DataFrame]


class DeltaTableReaderHandler(DeltaTableHandler):
    """An input annotated :class:`~cojudge_assets.core.frames.TableReader` (defs/io.py): the Delta table read slice by
    slice, each a filtered scan of its pyarrow dataset."""

    def load_input(self, context: dg.InputContext, table_slice, connection) -> TableReader:  # type: ignore[override]
        from deltalake import DeltaTable

        if not _exists(connection.table_uri, connection.storage_options):
            DeltaTableHandler.load_input(self, context, table_slice, connection)  # fails, naming the input
        uri, options = connection.table_uri, connection.storage_options
        # every slice from the version there is now: a partition another run writes meanwhile is not half seen
        version = DeltaTable(uri, storage_options=options).version()
        scope = {
            d.partition_expr: [str(v) for v in _values(d.partitions)] for d in table_slice.partition_dimensions or []
        }

        def fetch(columns: Sequence[str] | None, equal: Mapping[str, str], distinct: bool) -> pl.DataFrame:
            wanted = None
            for column, value in {**scope, **equal}.items():
                test = pc.field(column).isin(value if isinstance(value, list) else [str(value)])
                wanted = test if wanted is None else wanted & test
            dataset = DeltaTable(uri, version=version, storage_options=options).to_pyarrow_dataset()
            selected = list(columns) if columns else None
            if distinct:  # batch by batch: the distinct values, never every row at once
                found = [
                    pl.DataFrame(pl.from_arrow(batch)).unique()
                    for batch in dataset.to_batches(columns=selected, filter=wanted)
                ]
                return (
                    pl.concat(found).unique()
                    if found
                    else pl.DataFrame(schema=dict.fromkeys(selected or [], pl.String))
                )
            frame = pl.from_arrow(dataset.to_table(columns=selected, filter=wanted))
            assert isinstance(frame, pl.DataFrame)
            return frame

        return TableReader(context.name, table_slice.columns, scope, fetch)

    @property
    def supported_types(self) -> Sequence[type[object]]:
        return [TableReader]


def _values(partitions) -> list:
    return list(partitions) if isinstance(partitions, list | tuple | set) else [partitions]


def _one_value(partitions) -> str:
    values = _values(partitions)
    if len(values) != 1:
        raise ValueError(f"a partition write names one value per dimension, got {values!r}")
    return str(values[0])


class DeltaTablesIOManager(DeltaLakePolarsIOManager):
    """Every asset table a Delta table under ``root_uri`` (module docstring)."""

    @staticmethod
    def type_handlers() -> Sequence:
        return [DeltaTableHandler(), DeltaTableReaderHandler()]

    @staticmethod
    def default_load_type() -> type | None:
        return pl.DataFrame


def tables_io_manager(tables_uri: str) -> DeltaTablesIOManager:
    """The IO manager for a tables root: a folder (made absolute) or an object-store URI (its credentials from
    the environment, as deltalake reads them)."""
    scheme = urlsplit(tables_uri).scheme
    root = tables_uri if scheme and scheme != "file" else str(Path(tables_uri.removeprefix("file://")).resolve())
    return DeltaTablesIOManager(root_uri=root, storage_options=LocalConfig(), schema=SCHEMA)


def claim_storage(tables_root: str, postgres_url: str) -> None:
    """One deployment per storage (module docstring): mark the tables root with this deployment's database and
    the database with this tables root, or refuse, naming both settings, when either is marked by another.

    Postgres is reached first, and both marks are checked before either is written: a run that cannot reach its
    database (a wrong port, a server down) or that is refused claims nothing, so a corrected URL then works. The
    database's mark is written in a transaction that commits only once the tables root's is in place. The marker
    holds the URL redacted (settings.py ``redact``: no password, whatever its spelling), and two URLs name the same
    deployment when they name the same database (user, host, port, name: ``database_identity``)."""
    from deltalake import DeltaTable, write_deltalake

    database = redact(postgres_url)
    marker = table_uri(tables_root, MARKER, schema="_meta")

    def refuse_other_tables(claimed: list) -> None:
        if claimed and database_identity(claimed[0]) != database_identity(postgres_url):
            raise dg.Failure(
                description=f"{TABLES_VARIABLE}={tables_root}: these tables belong to the deployment whose "
                f"{POSTGRES_VARIABLE} is {redact(claimed[0])}, not {database}; two deployments never share one "
                "storage (give this one a tables root of its own, or point it at that database)"
            )

    def first_claim() -> list:
        # the first claim is version 0 of the marker: two first claims at once can both commit (the second as
        # version 1), and the later one then reads the earlier one's database here and refuses
        return DeltaTable(marker, version=0).to_pyarrow_table().column("postgres").to_pylist()

    try:
        conn = connect(libpq_url(postgres_url))  # before anything is written: unreachable, nothing claimed
    except StoreUnreachable as exc:
        raise dg.Failure(description=str(exc)) from None
    try:
        with conn, conn.cursor() as cur:  # one transaction, committed on leaving, rolled back on a refusal
            # two first runs at once: `create ... if not exists` races in Postgres (a unique violation in
            # pg_type); the lock the store's own tables are made under makes the second wait and find them
            cur.execute("select pg_advisory_xact_lock(%s)", [STORE_DDL_LOCK])
            cur.execute("create schema if not exists cojudge")
            cur.execute("create table if not exists cojudge.deployment (tables_root text primary key)")
            cur.execute("select tables_root from cojudge.deployment")
            row = cur.fetchone()
            if row is not None and row[0] != tables_root:
                raise dg.Failure(
                    description=f"{POSTGRES_VARIABLE}={database}: this database holds the judge store of the "
                    f"deployment whose {TABLES_VARIABLE} is {row[0]}, not {tables_root}; two deployments never "
                    "share one storage"
                )
            if _exists(marker):
                refuse_other_tables(first_claim())
            else:
                try:
                    write_deltalake(marker, pa.table({"postgres": [database]}), mode="error")
                except Exception as exc:  # noqa: BLE001 - a lost race of two first runs (both read below), or not
                    if not _exists(marker):
                        raise dg.Failure(
                            description=f"{TABLES_VARIABLE}={tables_root}: cannot write the deployment's marker "
                            f"table {marker} ({type(exc).__name__}: {next(iter(str(exc).splitlines()), '')}); the "
                            "tables root must be writable by every run"
                        ) from None
                refuse_other_tables(first_claim())
            if row is None:
                cur.execute("insert into cojudge.deployment values (%s)", [tables_root])
    finally:
        conn.close()


class DeployedStores(DuckDBResource):
    """The ``duckdb`` resource of the deployed profile (module docstring). ``database``: the file whose folder
    receives the side files; ``postgres_url``: the judge store's database; ``tables_root``: the Delta tables'."""

    postgres_url: str
    tables_root: str
    provider_limits: str = ""  # COJUDGE_PROVIDER_LIMITS: how many runs of one provider's judges run at once

    def runs_at_once(self, provider: str) -> int:
        return runs_at_once(provider_limits(self.provider_limits), provider)

    def dsn(self) -> str:
        return libpq_url(self.postgres_url)

    @contextlib.contextmanager
    def yield_for_execution(self, context: dg.InitResourceContext) -> Iterator:
        claim_storage(self.tables_root, self.postgres_url)
        with super().yield_for_execution(context) as value:
            yield value

    @contextlib.contextmanager
    def judge_store(self) -> Iterator[PostgresStore]:
        try:
            store = PostgresStore(self.dsn())
        except StoreUnreachable as exc:
            raise dg.Failure(description=str(exc)) from None
        try:
            yield store
        finally:
            store.close()

    def asset_table(self, name: str) -> pl.DataFrame | None:
        """An unpartitioned asset's own Delta table under the tables root (None before its first write): the read
        of its previous table by an asset that extends it (defs/design/assets.py), as the embedded profile reads
        it from the DuckDB file."""
        from deltalake import DeltaTable

        uri = table_uri(self.tables_root, name)
        if not _exists(uri):
            return None
        frame = pl.from_arrow(DeltaTable(uri).to_pyarrow_table())
        assert isinstance(frame, pl.DataFrame)
        return frame

    @contextlib.contextmanager
    def get_connection(self) -> Iterator[duckdb.DuckDBPyConnection]:
        """A read-only DuckDB snapshot of the judge store's side tables (epochs, settings, drift events, imports,
        rejects: those that exist), in schema ``main``; never the judge cache, which is read by query through
        :meth:`judge_store` (``cache_rows``, ``valid_answers``, ``accounting``, ``served_model``)."""
        with self.judge_store() as store, tempfile.TemporaryDirectory(prefix="cojudge-store-") as folder:
            path = str(Path(folder) / "stores.duckdb")
            with duckdb.connect(path) as writer:
                for name in STORE_TABLES:
                    if name == CACHE_TABLE:
                        continue
                    frame = store.read_table(name)
                    if frame is not None:
                        snapshot = frame.to_arrow()  # noqa: F841 (read by DuckDB by name)
                        writer.execute(f"create table main.{name} as select * from snapshot")
            conn = duckdb.connect(path, read_only=True)
            try:
                yield conn
            finally:
                conn.close()
