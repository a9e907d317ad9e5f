"""Asset tables handed to an asset as frames, queried with DuckDB in memory under their asset names.

An asset never reads another asset's table from the DuckDB file: it gets it as an
input (a polars frame the IO manager loaded), and where the join is clearest in
SQL, :func:`frames_connection` registers the frames in an in-memory DuckDB under
their asset names, so ``select ... from main.<asset>`` reads exactly the inputs
and nothing else. A frame without columns (the IO manager's answer for a table
that was never materialized) is not registered, so ``has_table`` says it is absent.

A large table is handed over as a :class:`TableReader` instead (defs/io.py: an input annotated with it), read
slice by slice by the asset, so that only one slice's strings are held at a time.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

import duckdb
import polars as pl


def frames_connection(frames: Mapping[str, pl.DataFrame]) -> duckdb.DuckDBPyConnection:
    """An in-memory DuckDB connection with each frame that has columns registered as a view named after its key.

    >>> conn = frames_connection({"attempts": pl.DataFrame({"accepted": [True, False]}), "absent": pl.DataFrame()})
    >>> conn.execute("select count(*) filter (where accepted) from main.attempts").fetchone()[0]
    1
    >>> sorted(row[0] for row in conn.execute("select table_name from information_schema.tables").fetchall())
    ['attempts']
    """
    conn = duckdb.connect()
    for name, frame in frames.items():
        if frame.width:
            conn.register(name, frame)
    return conn


class TableReader:
    """An asset table read slice by slice (see module docstring; core/measurement/predictions.py ``SliceReader``).

    ``scope``: column -> the values the input's partitions allow (an unpartitioned table: none), ``columns``: the
    input's columns (None: all); ``fetch(columns, equal, distinct)`` returns the rows (``distinct``: the distinct
    rows, found by the store, not in memory) whose columns equal ``equal``'s values
    and ``scope``'s, as a polars frame."""

    def __init__(
        self,
        name: str,
        columns: Sequence[str] | None,
        scope: Mapping[str, list[str]],
        fetch: Callable[[Sequence[str] | None, Mapping[str, str], bool], pl.DataFrame],
    ):
        self.name, self.columns, self.scope, self._fetch = name, columns, dict(scope), fetch

    def read(self, *columns: str, **equal: str) -> pl.DataFrame:
        """The rows whose columns equal ``equal``'s values (each a partition column or any other): ``columns``
        only (none named: the input's columns), so a pass that needs two columns of a slice reads two."""
        return self._fetch(list(columns) if columns else self.columns, equal, False)

    def distinct(self, *columns: str, **equal: str) -> pl.DataFrame:
        """The distinct rows of ``columns`` among the rows whose columns equal ``equal``'s values, found by the
        store (a million rows of six cells' attempts come back as the attempts' rows), in no set order."""
        return self._fetch(list(columns), equal, True).unique()

    def keys(self, *columns: str) -> list[tuple]:
        """The distinct values of ``columns`` in the table (within the input's partitions), sorted: which slices
        there are to read."""
        return list(self.distinct(*columns).sort(list(columns)).iter_rows())


def frame_reader(name: str, frame: pl.DataFrame) -> TableReader:
    """A :class:`TableReader` over a frame already in memory (a test's, a bench's, an unpartitioned reader's): the
    functions that take a reader take a frame through it, one code path for both.

    >>> reader = frame_reader("predictions", pl.DataFrame({"judge": ["a", "b", "a"], "p": [0.1, 0.2, 0.3]}))
    >>> reader.keys("judge"), reader.read(judge="a")["p"].to_list(), reader.read("judge", judge="b").columns
    ([('a',), ('b',)], [0.1, 0.3], ['judge'])
    """

    def fetch(wanted: Sequence[str] | None, equal: Mapping[str, str], distinct: bool) -> pl.DataFrame:
        if not frame.width:  # the IO manager's frame of a table never materialized: no rows, whatever the columns
            return pl.DataFrame(schema=dict.fromkeys(wanted or [], pl.String))
        rows = frame.filter(*(pl.col(c).cast(pl.String) == str(v) for c, v in equal.items())) if equal else frame
        rows = rows.select(wanted) if wanted else rows
        return rows.unique(maintain_order=True) if distinct else rows

    return TableReader(name, frame.columns, {}, fetch)


def _equal_clause(conditions: Mapping[str, str | list[str]]) -> tuple[str, list[str]]:
    """A SQL where clause (empty when nothing is asked) and its parameters: each column equal to a value or in a
    list of values."""
    tests, parameters = [], []
    for column, value in conditions.items():
        values = value if isinstance(value, list) else [value]
        tests.append(f'"{column}" in ({", ".join("?" for _ in values)})')
        parameters += [str(v) for v in values]
    return (" where " + " and ".join(tests)) if tests else "", parameters


def duckdb_table_reader(
    database: str,
    target: str,
    name: str,
    columns: Sequence[str] | None = None,
    scope: Mapping[str, list[str]] | None = None,
    *,
    read_only: bool = False,
    config: Mapping[str, str | bool | int | float | list[str]] | None = None,
) -> TableReader:
    """A :class:`TableReader` of table ``target`` (schema.table) in the DuckDB file ``database``: each read a
    query of its own on a connection of its own (``read_only``: a bench's, on a file no run writes). ``config``:
    the DuckDB configuration of the process's other connections to the file (DuckDB refuses a second one with
    another configuration while the first is open, and a run's IO manager connection can outlive its input)."""
    scope = dict(scope or {})
    options = dict(config or {})

    def fetch(wanted: Sequence[str] | None, equal: Mapping[str, str], distinct: bool) -> pl.DataFrame:
        selected = ", ".join(f'"{c}"' for c in wanted) if wanted else "*"
        clause, parameters = _equal_clause({**scope, **equal})
        query = f"select {'distinct ' if distinct else ''}{selected} from {target}{clause}"
        with duckdb.connect(database, read_only=read_only, config=options) as conn:
            return pl.DataFrame(conn.execute(query, parameters).arrow())

    return TableReader(name, columns, scope, fetch)


# rows per insert of a frame into a DuckDB table (:func:`insert_in_slices`)
INSERT_ROWS = 100_000


def insert_in_slices(
    connection: duckdb.DuckDBPyConnection,
    target: str,
    frame: pl.DataFrame,
    rows: int = INSERT_ROWS,
    *,
    columns: Sequence[str] | None = None,
) -> None:
    """Insert ``frame`` into ``target`` (made from its schema if absent) ``rows`` at a time, within the caller's
    transaction (a failed insert leaves none of the frame's rows: the caller rolls back); ``columns``: those
    columns only, by name (the table may have more). An insert of the whole frame goes through ``to_arrow()``, a
    copy of every string (polars' string views become Arrow large strings): 10^6 judge requests held ~0.4 GB more
    while DuckDB read them, and an imported judge's 10^6 answers ~135 MB more. A slice's copy is the most held now
    (defs/io.py, a partition's frame; judges/store.py, an imported judge's answers)."""
    empty = frame.head(0).to_arrow()  # noqa: F841  (read by name by DuckDB's replacement scan)
    connection.execute(f"create table if not exists {target} as select * from empty;")
    names = ", ".join(f'"{c}"' for c in columns) if columns is not None else None
    insert = f"insert into {target} ({names}) select {names} from part_arrow" if names else None
    for part in frame.iter_slices(rows):
        part_arrow = part.to_arrow()  # noqa: F841  (read by name by DuckDB's replacement scan)
        connection.execute(insert or f"insert into {target} select * from part_arrow")
        del part_arrow


def as_reader(table: pl.DataFrame | TableReader, name: str) -> TableReader:
    """``table`` itself when it is a reader, else :func:`frame_reader` over it."""
    return frame_reader(name, table) if isinstance(table, pl.DataFrame) else table
